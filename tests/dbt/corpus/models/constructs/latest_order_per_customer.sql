-- Joins on models deduplicated by row_number() ... = 1 (QUALIFY, or a
-- subquery and WHERE): the first row of each partition is the evidence
-- for the promise.
select c.customer_id, c.country, l.order_id as latest_order_id, f.order_id as first_order_id
from {{ ref('stg_customers') }} as c
left join {{ ref('qualify_alias') }} as l on l.customer_id = c.customer_id
left join {{ ref('dedup_subquery') }} as f on f.customer_id = c.customer_id

-- A join on a model deduplicated by QUALIFY row_number() ... = 1: the
-- first row of each partition is the evidence for the promise.
select c.customer_id, c.country, l.order_id as latest_order_id
from {{ ref('stg_customers') }} as c
left join {{ ref('qualify_alias') }} as l on l.customer_id = c.customer_id

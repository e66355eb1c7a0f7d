-- Evidence from a select distinct.
select
    c.customer_id,
    d.country
from {{ ref('stg_customers') }} c
inner join {{ ref('distinct_countries') }} d on c.country = d.country

-- A left join to a dimension unique by its dbt test.
select
    o.order_id,
    o.amount,
    c.first_name,
    coalesce(c.country, 'unknown') as country
from {{ ref('stg_orders') }} o
left join {{ ref('stg_customers') }} c on o.customer_id = c.customer_id

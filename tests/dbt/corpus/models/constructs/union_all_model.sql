-- Two branches whose columns are named differently: the second is
-- renamed into the first's names.
select customer_id as id, 'customer' as kind from {{ ref('stg_customers') }}
union all
select order_id, 'order' from {{ ref('stg_orders') }}

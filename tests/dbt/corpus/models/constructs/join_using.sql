select customer_id, first_name, number_of_orders
from {{ ref('stg_customers') }}
join {{ ref('customer_orders') }} using (customer_id)

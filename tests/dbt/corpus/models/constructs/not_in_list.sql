select order_id, status
from {{ ref('stg_orders') }}
where status not in ('returned', 'placed')

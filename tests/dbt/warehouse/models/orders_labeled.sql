select o.order_id, o.amount, c.label, c.weight
from {{ ref('stg_orders') }} as o
left join {{ ref('codes') }} as c on o.code = c.code

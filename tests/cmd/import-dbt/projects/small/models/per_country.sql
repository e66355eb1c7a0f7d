select e.country, sum(e.amount) as amount
from {{ ref('enriched') }} e
left join {{ ref('raw_orders') }} o on o.id = e.order_id
group by e.country

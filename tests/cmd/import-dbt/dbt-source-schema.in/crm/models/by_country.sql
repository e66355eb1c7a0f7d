select c.country, count(*) as orders
from {{ source('raw', 'orders') }} o
join {{ source('raw', 'customers') }} c on o.customer_id = c.id
group by c.country

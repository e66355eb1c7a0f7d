-- Converts since reserved words are written between backticks: `date`.
select order_id, ordered_on as date
from {{ ref('stg_orders') }}

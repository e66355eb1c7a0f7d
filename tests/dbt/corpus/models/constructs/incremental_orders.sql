{{ config(materialized='incremental', unique_key='order_id') }}

select order_id, ordered_on, amount
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where ordered_on > (select max(ordered_on) from {{ this }})
{% endif %}

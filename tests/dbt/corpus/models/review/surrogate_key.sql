-- Converts since the function catalog has md5(): the key is an md5 hash.
select
    {{ dbt_utils.generate_surrogate_key(['order_id', 'line_no']) }} as order_item_key,
    quantity
from {{ ref('stg_order_items') }}

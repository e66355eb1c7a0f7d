-- Needs review: the key is an md5 hash, which strata has no function for.
select
    {{ dbt_utils.generate_surrogate_key(['order_id', 'line_no']) }} as order_item_key,
    quantity
from {{ ref('stg_order_items') }}

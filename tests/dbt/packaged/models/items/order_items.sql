select
    i.item_id,
    i.order_id,
    i.sku
from {{ ref('raw_items') }} as i

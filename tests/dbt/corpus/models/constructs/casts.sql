select
    cast(product_id as varchar) as product_code,
    price::double as price_float,
    cast(price as decimal(12, 3)) as price_precise,
    cast('2024-01-01' as date) as launch_day,
    cast(price * 100 as bigint) as price_cents
from {{ ref('stg_products') }}

select * from {{ var('shop_orders') }}

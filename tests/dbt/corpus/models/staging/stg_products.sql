-- select * expanded from the seed's columns (price typed by column_types).
select * from {{ ref('raw_products') }}

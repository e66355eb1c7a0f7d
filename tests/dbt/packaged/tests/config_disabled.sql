{{ config(enabled=false) }}
select * from {{ ref('orders') }} where items < 0

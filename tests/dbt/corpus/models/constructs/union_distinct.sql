select country from {{ ref('stg_customers') }} where country is not null
union
select 'FR' as country from {{ ref('stg_products') }}

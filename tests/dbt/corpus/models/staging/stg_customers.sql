-- The jaffle_shop pattern: a source CTE, a renamed CTE, select * from it.
with source as (

    select * from {{ ref('raw_customers') }}

),

renamed as (

    select
        id as customer_id,
        first_name,
        country,
        signup_date,
        segment
    from source

)

select * from renamed

{{ config(materialized='ephemeral') }}
select customer_id, country from {{ ref('stg_customers') }}

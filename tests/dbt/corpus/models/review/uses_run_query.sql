-- Needs review: run_query asks the warehouse while compiling.
{% set one = run_query("select 1 as one") %}
select order_id from {{ ref('stg_orders') }}

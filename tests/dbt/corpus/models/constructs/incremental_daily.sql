{{ config(materialized='incremental', unique_key='kind') }}

-- Grouped after its incremental filter: dbt's incremental run counts only
-- the new events, so strata rebuilds it in full.
select kind, count(*) as events, max(happened_at) as happened_at
from {{ ref('stg_events') }}
{% if is_incremental() %}
where happened_at > (select max(happened_at) from {{ this }})
{% endif %}
group by kind

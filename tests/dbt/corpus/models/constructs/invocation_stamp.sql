-- dbt's invocation id, which strata reads as its run's id (`run_id()`):
-- a per-invocation column, each run's own value.
select
    order_id,
    '{{ invocation_id }}' as loaded_by
from {{ ref('stg_orders') }}

{{ config(materialized='incremental') }}

-- Appended: the events after the latest one already loaded.
with events as (
    select * from {{ ref('stg_events') }}
    {% if is_incremental() %}
    where happened_at > (select max(happened_at) from {{ this }})
    {% endif %}
)

select e.id, e.happened_at, e.kind
from events as e

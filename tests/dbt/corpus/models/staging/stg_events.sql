select * exclude (event_id), event_id as id from {{ ref('raw_events') }}

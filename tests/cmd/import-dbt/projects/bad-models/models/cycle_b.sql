select id from {{ ref('cycle_a') }}

select id from {{ ref('cycle_b') }}

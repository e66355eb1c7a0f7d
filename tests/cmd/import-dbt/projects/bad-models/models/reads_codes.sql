select id, code from {{ ref('raw_codes') }}

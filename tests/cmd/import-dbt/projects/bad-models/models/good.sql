select id, {{ double('amount') }} as amount_twice from {{ ref('raw_good') }}

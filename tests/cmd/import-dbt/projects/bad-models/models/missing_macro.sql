select
    id,
    {{ triple('amount') }} as amount_thrice
from {{ ref('raw_good') }}

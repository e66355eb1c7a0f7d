select id,
from {{ ref('raw_good') }}
where amount >

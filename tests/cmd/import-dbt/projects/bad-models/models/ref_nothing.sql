select id
from {{ ref('no_such_model') }}

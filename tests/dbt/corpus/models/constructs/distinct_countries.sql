select distinct country
from {{ ref('stg_customers') }}
where country is not null

-- dbt_utils.star: every column but the excluded ones.
select
    {{ dbt_utils.star(from=ref('stg_customers'), except=['segment', 'signup_date']) }}
from {{ ref('stg_customers') }}

select
    customer_id,
    upper(first_name) as upper_name,
    lower(first_name) as lower_name,
    length(first_name) as name_length,
    left(first_name, 2) as initials,
    replace(first_name, 'a', 'A') as replaced,
    substring(first_name, 2, 3) as middle,
    first_name || ' (' || coalesce(country, '?') || ')' as label,
    concat(first_name, '-', segment) as name_segment,
    trim('  ' || first_name || '  ') as trimmed
from {{ ref('stg_customers') }}

select country, count(*) as customers
from {{ ref('ephemeral_helper') }}
group by country

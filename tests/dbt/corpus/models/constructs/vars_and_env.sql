-- var() from dbt_project.yml (and its project scope), env_var() with a default.
select
    order_id,
    amount,
    '{{ env_var("STRATA_CORPUS_REGION", "eu") }}' as region
from {{ ref('stg_orders') }}
where amount >= {{ var('min_amount') }}
  and status in ({% for s in var('status_list') %}'{{ s }}'{% if not loop.last %}, {% endif %}{% endfor %})
  and amount < {{ var('max_amount', 1000) }}

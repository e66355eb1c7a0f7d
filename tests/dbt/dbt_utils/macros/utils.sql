{% macro star(from, relation_alias=false, except=[], prefix='', suffix='', quote_identifiers=true) -%}
  {%- set cols = adapter.get_columns_in_relation(from) -%}
  {%- set kept = [] -%}
  {%- for col in cols if col.column | lower not in except | map('lower') -%}
    {%- do kept.append((relation_alias ~ '.' if relation_alias else '') ~ adapter.quote(col.column) ~ (' as ' ~ adapter.quote(prefix ~ col.column ~ suffix) if prefix or suffix else '')) -%}
  {%- endfor -%}
  {{ kept | join(',\n  ') }}
{%- endmacro %}

{% macro generate_surrogate_key(field_list) -%}
  md5({% for field in field_list %}cast(coalesce(cast({{ field }} as varchar), '_dbt_utils_surrogate_key_null_') as varchar){% if not loop.last %} || '-' || {% endif %}{% endfor %})
{%- endmacro %}

{% macro safe_divide(numerator, denominator) -%}
  ( {{ numerator }} ) / nullif( ( {{ denominator }} ), 0)
{%- endmacro %}

{% macro pivot(column, values, alias=true, agg='sum', cmp='=', prefix='', suffix='', then_value=1, else_value=0, quote_identifiers=true, distinct=false) -%}
  {% for value in values %}{{ agg }}(case when {{ column }} {{ cmp }} '{{ value }}' then {{ then_value }} else {{ else_value }} end) as {{ adapter.quote(prefix ~ value ~ suffix) }}{% if not loop.last %},
  {% endif %}{% endfor %}
{%- endmacro %}

{% test unique_combination_of_columns(model, combination_of_columns) %}
  select {{ combination_of_columns | join(', ') }}, count(*) as n
  from {{ model }}
  group by {{ combination_of_columns | join(', ') }}
  having count(*) > 1
{% endtest %}

{% test expression_is_true(model, expression, column_name=none) %}
  select * from {{ model }} where not ({{ column_name ~ ' ' if column_name }}{{ expression }})
{% endtest %}

{% test accepted_range(model, column_name, min_value=none, max_value=none, inclusive=true) %}
  select * from {{ model }} where not ({{ column_name }} >= {{ min_value }} and {{ column_name }} <= {{ max_value }})
{% endtest %}

{% macro date_spine(datepart, start_date, end_date) -%}
  {#- As dbt_utils' date_spine: every datepart from start_date up to
      end_date (left out), as timestamps, named date_<datepart>. -#}
  with parts as (
    select unnest(range(0, datediff('{{ datepart }}', cast({{ start_date }} as date), cast({{ end_date }} as date)))) as k
  )
  select cast({{ start_date }} as date) + k * interval 1 {{ datepart }} as date_{{ datepart }}
  from parts
{%- endmacro %}

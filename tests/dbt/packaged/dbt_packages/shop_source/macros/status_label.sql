{#- Called unqualified by the package's own models. -#}
{% macro status_label(column) -%}
  upper({{ column }})
{%- endmacro %}

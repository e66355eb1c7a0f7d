{#- The root project's rendering of the package's dispatched macro: the
    root's `dispatch:` searches this project first. -#}
{% macro duckdb__cents_to_dollars(column) -%}
  round({{ column }} / 100.0, 2)
{%- endmacro %}

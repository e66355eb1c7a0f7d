{% macro cents_to_dollars(column) -%}
  {{ return(adapter.dispatch('cents_to_dollars', 'shop_source')(column)) }}
{%- endmacro %}

{% macro default__cents_to_dollars(column) -%}
  ({{ column }} / 100)
{%- endmacro %}

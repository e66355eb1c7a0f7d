{# Cents to dollars, the way dbt projects dispatch per adapter. #}
{% macro cents_to_dollars(column) -%}
  {{ return(adapter.dispatch('cents_to_dollars')(column)) }}
{%- endmacro %}

{% macro default__cents_to_dollars(column) -%}
  ({{ column }} / 100)
{%- endmacro %}

{% macro duckdb__cents_to_dollars(column) -%}
  ({{ column }} / 100.0)
{%- endmacro %}

{% macro payment_methods() -%}
  {% do return(['credit_card', 'coupon', 'bank_transfer', 'gift_card']) %}
{%- endmacro %}

{% macro is_big(column, threshold=100) -%}
  {{ column }} >= {{ threshold }}
{%- endmacro %}

{% macro double(x) %}({{ x }} * 2){% endmacro %}

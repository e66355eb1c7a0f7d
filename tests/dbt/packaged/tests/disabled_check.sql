-- Disabled in dbt_project.yml's data_tests: not one of the project's tests.
select * from {{ ref('orders') }} where amount < 0

-- Disabled in dbt_project.yml: skipped.
select 1 as x

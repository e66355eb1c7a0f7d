-- A SELECT without FROM: one row of constants.
select
    1 as id,
    'retail' as segment,
    cast('2024-01-31' as date) as period_end,
    2.5::double as weight

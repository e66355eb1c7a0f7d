-- generate_series of dates in FROM (DuckDB gives timestamps), and range()
-- of integers (its end left out): series models.
with days as (
    select cast(d as date) as day
    from generate_series(date '2023-05-01', date '2023-05-10', interval 1 day) as t(d)
),
numbers as (
    select range as n from range(0, 10, 3)
)
select days.day, numbers.n
from days
inner join numbers on numbers.n = extract(day from days.day)

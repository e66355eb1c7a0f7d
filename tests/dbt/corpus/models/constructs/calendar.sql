-- dbt_utils.date_spine: a series model of timestamps, its end left out.
{{ dbt_utils.date_spine(datepart="day", start_date="cast('2023-05-01' as date)", end_date="cast('2023-05-08' as date)") }}

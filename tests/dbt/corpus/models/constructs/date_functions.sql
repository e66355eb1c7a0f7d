select
    order_id,
    {{ dbt.date_trunc('month', 'ordered_on') }} as order_month,
    {{ dbt.dateadd('day', 7, 'ordered_on') }} as due_on,
    {{ dbt.datediff('ordered_on', "'2023-12-31'::date", 'day') }} as days_to_year_end,
    ordered_on + 1 as next_day,
    ordered_on >= '2023-06-01' as is_summer
from {{ ref('stg_orders') }}

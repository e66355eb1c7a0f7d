-- An element of a split string (past the end: null) and a slice of a
-- qualified column. (DuckDB's `AT TIME ZONE 'UTC'` is read too, but this
-- test runs dbt's SQL on strata's DuckDB, which has no time zones.)
select
    e.id,
    string_split(e.kind, 'o')[1] as kind_head,
    string_split(e.kind, 'o')[5] as kind_past_the_end,
    e.kind[2:3] as kind_middle
from {{ ref('stg_events') }} e

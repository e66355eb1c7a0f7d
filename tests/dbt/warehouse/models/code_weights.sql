-- Reads only the seed: in the `seeds` pipeline, strata reads codes.csv
-- itself, with the seed's column_types (`007` stays text).
select code, label, weight from {{ ref('codes') }}

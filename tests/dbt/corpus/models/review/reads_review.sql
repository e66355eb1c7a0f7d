-- Reads uses_round, which converts since the catalog has round().
select order_id, amount_rounded from {{ ref('uses_round') }}

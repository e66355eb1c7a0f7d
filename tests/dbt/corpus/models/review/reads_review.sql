-- Needs review: it reads a model that needs review.
select order_id, amount_rounded from {{ ref('uses_round') }}

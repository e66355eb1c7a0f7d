{{ config(enabled=var('shop__using_refunds', true)) }}
select refund_id from {{ var('shop_refunds') }}

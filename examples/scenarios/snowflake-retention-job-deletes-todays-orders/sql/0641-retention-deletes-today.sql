-- 06:41: the nightly retention DAG deletes orders older than its cutoff. The cutoff was meant to be
-- 400 days ago; a changed template rendered it as today's date, so it deletes every order placed today.
DELETE FROM analytics.shop.orders WHERE placed_at >= to_timestamp_ntz('2026-12-01T00:00:00Z');

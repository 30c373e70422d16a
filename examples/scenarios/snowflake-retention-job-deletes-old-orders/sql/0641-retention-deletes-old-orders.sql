-- 06:41: the nightly retention DAG deletes the orders older than its cutoff, 400 days ago: none of
-- them is in the last day's volume, and the DELETE removes nothing the checks count.
DELETE FROM analytics.shop.orders WHERE placed_at < to_timestamp_ntz('2025-10-27T00:00:00Z');

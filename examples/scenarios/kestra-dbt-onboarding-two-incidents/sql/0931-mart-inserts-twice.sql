-- 09:31: shop.daily_revenue's 09:30 run, on revision 6: dbt's incremental fct_daily_revenue
-- appends Tue 1 Dec, then the new late_orders task inserts the same day again.
INSERT INTO daily_revenue
SELECT substr(ordered_at, 1, 10), count(*), sum(amount), '2026-12-02T09:31:10Z'
FROM raw_orders WHERE substr(ordered_at, 1, 10) = '2026-12-01' GROUP BY 1;
INSERT INTO daily_revenue
SELECT substr(ordered_at, 1, 10), count(*), sum(amount), '2026-12-02T09:31:39Z'
FROM raw_orders WHERE substr(ordered_at, 1, 10) = '2026-12-01' GROUP BY 1;

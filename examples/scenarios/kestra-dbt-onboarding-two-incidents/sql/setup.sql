-- Before onboarding (Wed 2 Dec 08:00): the last day of hourly loads into raw_orders, 120 orders an
-- hour, each loaded two minutes past the hour after it was taken; and the revenue mart up to Mon 30 Nov
-- (Tue 1 Dec is built by the 09:30 run of shop.daily_revenue on Wed).
DROP TABLE IF EXISTS raw_orders;
DROP TABLE IF EXISTS daily_revenue;
CREATE TABLE raw_orders (order_id TEXT, customer_id TEXT, amount REAL, ordered_at TEXT NOT NULL, loaded_at TEXT NOT NULL);
CREATE TABLE daily_revenue (day TEXT, orders INTEGER, revenue REAL, built_at TEXT NOT NULL);
-- Hours 0..23 load at Tue 08:02 .. Wed 07:02; order i of hour h was taken within the hour before.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 24 * 120 - 1)
INSERT INTO raw_orders
SELECT printf('o-%06d', i + 1), printf('c-%05d', (i * 7919) % 40000), 10 + (i * 37) % 190,
       strftime('%Y-%m-%dT%H:%M:%SZ', '2026-12-01T07:00:00', printf('+%d seconds', (i / 120) * 3600 + (i % 120) * 30)),
       strftime('%Y-%m-%dT%H:%M:%SZ', '2026-12-01T08:02:00', printf('+%d hours', i / 120))
FROM n;
WITH RECURSIVE d(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM d WHERE k < 6)
INSERT INTO daily_revenue
SELECT date('2026-11-24', printf('+%d days', k)), 2880, 2880 * 104.5 + k * 13.0,
       strftime('%Y-%m-%dT%H:%M:%SZ', '2026-11-25T09:31:00', printf('+%d days', k))
FROM d;

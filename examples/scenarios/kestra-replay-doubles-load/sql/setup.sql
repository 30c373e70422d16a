DROP TABLE IF EXISTS daily_sales;
CREATE TABLE daily_sales (order_id TEXT NOT NULL, day TEXT NOT NULL, amount REAL NOT NULL, loaded_at TEXT NOT NULL);
-- Monday's orders, loaded by the 06:00 run on Tuesday.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
INSERT INTO daily_sales SELECT printf('o-20261123-%05d', i), '2026-11-23', 5 + (i * 37) % 120, '2026-11-24T06:00:04.000Z' FROM n;

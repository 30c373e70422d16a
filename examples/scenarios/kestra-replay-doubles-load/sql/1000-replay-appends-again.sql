-- 10:00: the replay of Tuesday's 06:00 execution appends Monday's 1,200 orders a second time.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
INSERT INTO daily_sales SELECT printf('o-20261123-%05d', i), '2026-11-23', 5 + (i * 37) % 120, '2026-11-24T10:00:06.000Z' FROM n;

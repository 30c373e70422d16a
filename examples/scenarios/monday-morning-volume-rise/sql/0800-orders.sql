-- The orders placed from 07:00 to 08:00 (102), landed by the hour.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 101)
INSERT INTO orders SELECT 91 + i, 20 + (i * 37) % 80, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-30T07:00:00', printf('+%d seconds', i * 35)) FROM n;

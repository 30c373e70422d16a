-- The orders placed from 06:00 to 07:00 (90), landed by the hour.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 89)
INSERT INTO orders SELECT 1 + i, 20 + (i * 37) % 80, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-30T06:00:00', printf('+%d seconds', i * 39)) FROM n;

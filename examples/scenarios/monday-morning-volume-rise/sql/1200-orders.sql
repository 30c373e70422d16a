-- The orders placed from 11:00 to 12:00 (360), landed by the hour.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 359)
INSERT INTO orders SELECT 1161 + i, 20 + (i * 37) % 80, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-30T11:00:00', printf('+%d seconds', i * 9)) FROM n;

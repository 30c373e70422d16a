-- The orders placed from 09:00 to 10:00 (324), landed by the hour.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 323)
INSERT INTO orders SELECT 490 + i, 20 + (i * 37) % 80, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-30T09:00:00', printf('+%d seconds', i * 11)) FROM n;

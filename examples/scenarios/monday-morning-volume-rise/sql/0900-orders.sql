-- The orders placed from 08:00 to 09:00 (297), landed by the hour.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 296)
INSERT INTO orders SELECT 193 + i, 20 + (i * 37) % 80, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-30T08:00:00', printf('+%d seconds', i * 12)) FROM n;

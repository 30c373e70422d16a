-- The orders placed from 10:00 to 11:00 (347), landed by the hour.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 346)
INSERT INTO orders SELECT 814 + i, 20 + (i * 37) % 80, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-30T10:00:00', printf('+%d seconds', i * 10)) FROM n;

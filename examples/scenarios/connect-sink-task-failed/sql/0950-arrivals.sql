-- Orders landed from 09:40 to 09:50 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 405)
INSERT INTO orders SELECT 7598 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T09:40:00', printf('+%d seconds', i * 590 / 406)) FROM n;

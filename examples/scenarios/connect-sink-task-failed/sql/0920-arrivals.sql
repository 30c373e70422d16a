-- Orders landed from 09:10 to 09:20 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 387)
INSERT INTO orders SELECT 6416 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T09:10:00', printf('+%d seconds', i * 590 / 388)) FROM n;

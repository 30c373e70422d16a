-- Orders landed from 10:40 to 10:50 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 410)
INSERT INTO orders SELECT 10000 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T10:40:00', printf('+%d seconds', i * 590 / 411)) FROM n;

-- Orders landed from 09:30 to 09:40 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 399)
INSERT INTO orders SELECT 7198 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T09:30:00', printf('+%d seconds', i * 590 / 400)) FROM n;

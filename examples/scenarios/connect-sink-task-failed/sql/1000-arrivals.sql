-- Orders landed from 09:50 to 10:00 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 411)
INSERT INTO orders SELECT 8004 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T09:50:00', printf('+%d seconds', i * 590 / 412)) FROM n;

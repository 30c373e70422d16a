-- Orders landed from 10:10 to 10:20 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 392)
INSERT INTO orders SELECT 8803 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T10:10:00', printf('+%d seconds', i * 590 / 393)) FROM n;

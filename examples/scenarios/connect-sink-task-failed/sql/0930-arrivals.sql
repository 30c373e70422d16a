-- Orders landed from 09:20 to 09:30 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 393)
INSERT INTO orders SELECT 6804 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T09:20:00', printf('+%d seconds', i * 590 / 394)) FROM n;

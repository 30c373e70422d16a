-- Orders landed from 10:30 to 10:40 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 404)
INSERT INTO orders SELECT 9595 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T10:30:00', printf('+%d seconds', i * 590 / 405)) FROM n;

-- Orders landed from 10:00 to 10:10 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 386)
INSERT INTO orders SELECT 8416 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T10:00:00', printf('+%d seconds', i * 590 / 387)) FROM n;

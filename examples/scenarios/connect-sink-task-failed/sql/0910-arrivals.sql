-- Orders landed from 09:00 to 09:10 (partitions 0, 1).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 406)
INSERT INTO orders SELECT 5596 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T09:00:00', printf('+%d seconds', i * 590 / 407)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 412)
INSERT INTO orders SELECT 6003 + i, 1, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T09:00:00', printf('+%d seconds', i * 590 / 413)) FROM n;

-- Orders landed from 08:00 to 08:10 (partitions 0, 1).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 396)
INSERT INTO orders SELECT 777 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:00:00', printf('+%d seconds', i * 590 / 397)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 402)
INSERT INTO orders SELECT 1174 + i, 1, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:00:00', printf('+%d seconds', i * 590 / 403)) FROM n;

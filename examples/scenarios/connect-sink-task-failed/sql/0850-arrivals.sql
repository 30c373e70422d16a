-- Orders landed from 08:40 to 08:50 (partitions 0, 1).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 413)
INSERT INTO orders SELECT 3997 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:40:00', printf('+%d seconds', i * 590 / 414)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 388)
INSERT INTO orders SELECT 4411 + i, 1, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:40:00', printf('+%d seconds', i * 590 / 389)) FROM n;

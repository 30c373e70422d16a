-- Orders landed from 08:20 to 08:30 (partitions 0, 1).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 389)
INSERT INTO orders SELECT 2401 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:20:00', printf('+%d seconds', i * 590 / 390)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 395)
INSERT INTO orders SELECT 2791 + i, 1, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:20:00', printf('+%d seconds', i * 590 / 396)) FROM n;

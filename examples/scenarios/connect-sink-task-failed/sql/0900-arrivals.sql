-- Orders landed from 08:50 to 09:00 (partitions 0, 1).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 394)
INSERT INTO orders SELECT 4800 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:50:00', printf('+%d seconds', i * 590 / 395)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
INSERT INTO orders SELECT 5195 + i, 1, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:50:00', printf('+%d seconds', i * 590 / 401)) FROM n;

-- Orders landed from 08:30 to 08:40 (partitions 0, 1).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 401)
INSERT INTO orders SELECT 3187 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:30:00', printf('+%d seconds', i * 590 / 402)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 407)
INSERT INTO orders SELECT 3589 + i, 1, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:30:00', printf('+%d seconds', i * 590 / 408)) FROM n;

-- Orders landed from 08:10 to 08:20 (partitions 0, 1).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 408)
INSERT INTO orders SELECT 1577 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:10:00', printf('+%d seconds', i * 590 / 409)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 414)
INSERT INTO orders SELECT 1986 + i, 1, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T08:10:00', printf('+%d seconds', i * 590 / 415)) FROM n;

-- Orders landed from 10:50 to 11:00 (partitions 0).
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 385)
INSERT INTO orders SELECT 10411 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T10:50:00', printf('+%d seconds', i * 590 / 386)) FROM n;

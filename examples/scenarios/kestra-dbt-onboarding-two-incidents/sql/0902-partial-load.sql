-- 09:02: the 09:00 run's fetch timed out on page 2 and retried from page 1: it loads 45 rows for
-- the hour 08:00-09:00 instead of ~120. 15 of them are the last 15 orders of the hour before again
-- (order ids already loaded at 08:02), and 22 of the 30 new orders came without a customer id.
WITH RECURSIVE n(i) AS (SELECT 2985 UNION ALL SELECT i + 1 FROM n WHERE i < 2999)
INSERT INTO raw_orders
SELECT printf('o-%06d', i + 1), printf('c-%05d', (i * 7919) % 40000), 10 + (i * 37) % 190,
       strftime('%Y-%m-%dT%H:%M:%SZ', '2026-12-02T07:00:00', printf('+%d seconds', (i - 2880) * 30)),
       '2026-12-02T09:02:00Z'
FROM n;
WITH RECURSIVE n(i) AS (SELECT 3000 UNION ALL SELECT i + 1 FROM n WHERE i < 3029)
INSERT INTO raw_orders
SELECT printf('o-%06d', i + 1), CASE WHEN i - 3000 < 22 THEN NULL ELSE printf('c-%05d', (i * 7919) % 40000) END,
       10 + (i * 37) % 190,
       strftime('%Y-%m-%dT%H:%M:%SZ', '2026-12-02T08:00:00', printf('+%d seconds', (i - 3000) * 30)),
       '2026-12-02T09:02:00Z'
FROM n;

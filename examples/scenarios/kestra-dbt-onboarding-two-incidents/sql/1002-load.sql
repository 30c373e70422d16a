-- 10:02: shop.load_orders' 10:00 run loads the 120 orders taken 9:00-10:00, whole again.
WITH RECURSIVE n(i) AS (SELECT 3030 UNION ALL SELECT i + 1 FROM n WHERE i < 3149)
INSERT INTO raw_orders
SELECT printf('o-%06d', i + 1), printf('c-%05d', (i * 7919) % 40000), 10 + (i * 37) % 190,
       strftime('%Y-%m-%dT%H:%M:%SZ', '2026-12-02T09:00:00', printf('+%d seconds', (i - 3030) * 30)),
       '2026-12-02T10:02:00Z'
FROM n;

-- 08:02: shop.load_orders' 08:00 run loads the 120 orders taken 07:00-08:00 (orders 2881-3000).
WITH RECURSIVE n(i) AS (SELECT 2880 UNION ALL SELECT i + 1 FROM n WHERE i < 2999)
INSERT INTO raw_orders
SELECT printf('o-%06d', i + 1), printf('c-%05d', (i * 7919) % 40000), 10 + (i * 37) % 190,
       strftime('%Y-%m-%dT%H:%M:%SZ', '2026-12-02T07:00:00', printf('+%d seconds', (i - 2880) * 30)),
       '2026-12-02T08:02:00Z'
FROM n;

-- 06:20: dbt's customer_tiers model rewrites the tiers (another table; nothing reads it into orders).
UPDATE analytics.shop.customers SET tier = 'gold' WHERE customer_id IN ('c001', 'c002', 'c003');

-- "Your warehouse" for docs/quickstart.md: the shop's raw orders as its hourly Kestra load left them.
-- The load 90 minutes ago brought 500 orders; the retried load 35 minutes ago (its page 2 timed out,
-- it started again from page 1) loaded 20 of them a second time, 5 of those without a customer.
-- Times are relative to now(), as the Kestra simulator's script is (quickstart_test.sh).
CREATE SCHEMA shop;
CREATE SCHEMA staging;
CREATE TABLE staging.orders_batch (order_id text, customer_id text, amount numeric, ordered_at timestamptz);
CREATE TABLE shop.orders (order_id text, customer_id text, amount numeric, ordered_at timestamptz,
                          loaded_at timestamptz);
INSERT INTO shop.orders
SELECT 'o-' || i, 'c-' || (i % 97), 10 + i % 50, now() - interval '3 hours' + i * interval '10 seconds',
       now() - interval '90 minutes'
FROM generate_series(1, 500) i;
INSERT INTO shop.orders
SELECT order_id, CASE WHEN order_id IN ('o-481', 'o-482', 'o-483', 'o-484', 'o-485') THEN NULL ELSE customer_id END,
       amount, ordered_at, now() - interval '35 minutes'
FROM shop.orders WHERE order_id IN (SELECT 'o-' || i FROM generate_series(481, 500) i);

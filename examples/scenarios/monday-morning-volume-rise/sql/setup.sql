DROP TABLE IF EXISTS orders;
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, amount REAL NOT NULL, placed_at TEXT NOT NULL);
-- The orders of 05:00 to 06:00, landed before the story starts.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 39)
INSERT INTO orders SELECT 900000 + i, 20 + (i * 37) % 80, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-30T05:00:00', printf('+%d seconds', i * 89)) FROM n;

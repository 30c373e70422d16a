DROP TABLE IF EXISTS orders;
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, part INTEGER NOT NULL, amount REAL NOT NULL, landed_at TEXT NOT NULL);
-- The orders of 07:50 to 08:00, landed before the story starts.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 384)
INSERT INTO orders SELECT 1 + i, 0, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T07:50:00', printf('+%d seconds', i * 590 / 385)) FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 390)
INSERT INTO orders SELECT 386 + i, 1, 10 + (i * 37) % 90, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T07:50:00', printf('+%d seconds', i * 590 / 391)) FROM n;

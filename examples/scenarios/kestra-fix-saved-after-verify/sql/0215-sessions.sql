-- Sessions 685 to 774, rated by energy.rate_session with the stale KV tariffs (0.49 for DC fast).
WITH RECURSIVE n(i) AS (SELECT 685 UNION ALL SELECT i + 1 FROM n WHERE i < 774)
INSERT INTO rated_sessions
SELECT printf('wed-%05d', i), printf('site-%03d', i % 140), CASE WHEN i <= 257 THEN 'ac' ELSE 'dc_fast' END,
       round(8 + (i * 41 % 520) / 10.0, 1), CASE WHEN i <= 257 THEN 0.29 ELSE 0.49 END,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-25T00:06:00', printf('+%d seconds', i * 10))
FROM n;

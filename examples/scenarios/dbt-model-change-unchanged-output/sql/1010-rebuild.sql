-- 10:10: the refactored model is rebuilt: the same 500 members in the same tiers.
DROP TABLE IF EXISTS fct_member_tier;
CREATE TABLE fct_member_tier (member_id INTEGER PRIMARY KEY, tier TEXT NOT NULL, built_at TEXT NOT NULL);
WITH RECURSIVE m(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM m WHERE id < 500)
INSERT INTO fct_member_tier
SELECT id, CASE WHEN 1000 + (id * 7919) % 9000 < 3000 THEN 'bronze' WHEN 1000 + (id * 7919) % 9000 < 7000 THEN 'silver' ELSE 'gold' END, '2026-11-24T10:10:00.000Z'
FROM m;

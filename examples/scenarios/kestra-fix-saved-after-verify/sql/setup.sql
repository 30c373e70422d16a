-- Before the story (Tue 23:30): the pricing service's tariffs (DC fast moves from 0.49 to 0.56
-- per kWh at Wed 00:00) and Tuesday's 1,800 sessions, each priced at the rate then in force.
-- The tables and rows are those of examples/ev-kestra/warehouse.sql, split so that Wednesday's
-- sessions land at the times they were rated.
DROP TABLE IF EXISTS tariffs;
DROP TABLE IF EXISTS rated_sessions;
DROP TABLE IF EXISTS rate_mismatches;
CREATE TABLE tariffs (tariff_class TEXT NOT NULL, rate_per_kwh REAL NOT NULL, effective_from TEXT NOT NULL, effective_to TEXT NOT NULL);
INSERT INTO tariffs VALUES
  ('dc_fast', 0.49, '2026-09-01T00:00:00.000Z', '2026-11-25T00:00:00.000Z'),
  ('dc_fast', 0.56, '2026-11-25T00:00:00.000Z', '2027-01-01T00:00:00.000Z'),
  ('ac',      0.29, '2026-09-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z');
CREATE TABLE rated_sessions (session_id TEXT NOT NULL, site_id TEXT NOT NULL, tariff_class TEXT NOT NULL,
  kwh REAL NOT NULL, rate_per_kwh REAL NOT NULL, stopped_at TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1800)
INSERT INTO rated_sessions
SELECT printf('tue-%05d', i), printf('site-%03d', i % 140), CASE WHEN i % 9 = 0 THEN 'ac' ELSE 'dc_fast' END,
       round(8 + (i * 37 % 520) / 10.0, 1), CASE WHEN i % 9 = 0 THEN 0.29 ELSE 0.49 END,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T00:00:00', printf('+%d seconds', i * 48))
FROM n;
CREATE TABLE rate_mismatches (session_id TEXT NOT NULL, applied_rate REAL NOT NULL, tariff_rate REAL NOT NULL, audited_at TEXT NOT NULL);
CREATE INDEX rated_sessions_stopped_at ON rated_sessions (stopped_at);

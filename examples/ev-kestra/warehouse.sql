-- The EV charging night of the Kestra incident, Wednesday 2026-11-25 (UTC).
-- tariffs: the pricing service's table. DC fast charging moves from 0.49 to 0.56 per kWh at
--   Wednesday 00:00; AC stays at 0.29.
-- rated_sessions: Tuesday's 1,800 sessions priced correctly, then the 2,203 sessions since
--   midnight, priced by energy.rate_session from the stale KV tariffs_current (September prices):
--   the 1,946 DC fast sessions among them are charged 0.49 instead of 0.56.
-- rate_mismatches: what finance.rate_audit wrote at 02:20: one row per mispriced session.
-- Replay the night with `dw check --now 2026-11-25T02:30:00Z`.
PRAGMA journal_mode = DELETE;

CREATE TABLE tariffs (
  tariff_class   TEXT NOT NULL,
  rate_per_kwh   REAL NOT NULL,
  effective_from TEXT NOT NULL,
  effective_to   TEXT NOT NULL
);
INSERT INTO tariffs VALUES
  ('dc_fast', 0.49, '2026-09-01T00:00:00.000Z', '2026-11-25T00:00:00.000Z'),
  ('dc_fast', 0.56, '2026-11-25T00:00:00.000Z', '2027-01-01T00:00:00.000Z'),
  ('ac',      0.29, '2026-09-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z');

CREATE TABLE rated_sessions (
  session_id   TEXT NOT NULL,
  site_id      TEXT NOT NULL,
  tariff_class TEXT NOT NULL,
  kwh          REAL NOT NULL,
  rate_per_kwh REAL NOT NULL,
  stopped_at   TEXT NOT NULL
);

-- Tuesday: 1,800 sessions from 00:00 to 23:59, every one at the rate then in force.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1800)
INSERT INTO rated_sessions
SELECT printf('tue-%05d', i),
       printf('site-%03d', i % 140),
       CASE WHEN i % 9 = 0 THEN 'ac' ELSE 'dc_fast' END,
       round(8 + (i * 37 % 520) / 10.0, 1),
       CASE WHEN i % 9 = 0 THEN 0.29 ELSE 0.49 END,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24T00:00:00', printf('+%d seconds', i * 48))
FROM n;

-- Wednesday 00:06 to 06:15: 2,203 sessions priced from the stale KV value. Every 8th-and-a-bit is
-- AC (correct); the 1,946 DC fast sessions carry September's 0.49.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2203)
INSERT INTO rated_sessions
SELECT printf('wed-%05d', i),
       printf('site-%03d', i % 140),
       CASE WHEN i <= 257 THEN 'ac' ELSE 'dc_fast' END,
       round(8 + (i * 41 % 520) / 10.0, 1),
       CASE WHEN i <= 257 THEN 0.29 ELSE 0.49 END,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-25T00:06:00', printf('+%d seconds', i * 10))
FROM n;

-- 02:20: the rate audit's findings.
CREATE TABLE rate_mismatches (
  session_id   TEXT NOT NULL,
  applied_rate REAL NOT NULL,
  tariff_rate  REAL NOT NULL,
  audited_at   TEXT NOT NULL
);
INSERT INTO rate_mismatches
SELECT s.session_id, s.rate_per_kwh, t.rate_per_kwh, '2026-11-25T02:20:00.000Z'
FROM rated_sessions s JOIN tariffs t
  ON t.tariff_class = s.tariff_class
 AND s.stopped_at >= t.effective_from AND s.stopped_at < t.effective_to
WHERE s.rate_per_kwh <> t.rate_per_kwh;

CREATE INDEX rated_sessions_stopped_at ON rated_sessions (stopped_at);

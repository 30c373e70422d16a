-- 06:22-07:02: the approved run plan, started by the owner in Kestra. tariff_sync (revision 9,
-- now on /v2) stores the October tariffs; energy.rerate_day re-prices Wednesday's sessions at the
-- tariff in effect and merges them into rated_sessions on session_id; the revenue marts rebuild;
-- finance.rate_audit re-runs for Wednesday and rewrites the night's report: no mismatch.
UPDATE rated_sessions
   SET rate_per_kwh = (SELECT t.rate_per_kwh FROM tariffs t
                        WHERE t.tariff_class = rated_sessions.tariff_class
                          AND rated_sessions.stopped_at >= t.effective_from
                          AND rated_sessions.stopped_at < t.effective_to)
 WHERE stopped_at >= '2026-11-25T00:00:00.000Z';
DELETE FROM rate_mismatches WHERE audited_at >= '2026-11-25T00:00:00.000Z';
INSERT INTO rate_mismatches
SELECT s.session_id, s.rate_per_kwh, t.rate_per_kwh, '2026-11-25T07:02:00.000Z'
FROM rated_sessions s JOIN tariffs t
  ON t.tariff_class = s.tariff_class AND s.stopped_at >= t.effective_from AND s.stopped_at < t.effective_to
WHERE s.rate_per_kwh <> t.rate_per_kwh;

-- 06:22-07:02: the approved run plan, started by the owner in Kestra. tariff_sync (revision 9,
-- now on /v2) stores the October tariffs; energy.rerate_day re-prices Wednesday's sessions at the
-- tariff in effect (rated_sessions on session_id); the revenue marts rebuild; finance.rate_audit
-- re-runs for Wednesday and rewrites the night's report: no mismatch.
UPDATE raw.rated_sessions AS r
   SET rate_per_kwh = (SELECT t.rate_per_kwh FROM pricing.tariffs t
                        WHERE t.tariff_class = r.tariff_class
                          AND r.stopped_at >= t.effective_from
                          AND r.stopped_at < t.effective_to)
 WHERE r.stopped_at >= TIMESTAMP('2026-11-25T00:00:00Z');
DELETE FROM audit.rate_mismatches WHERE audited_at >= TIMESTAMP('2026-11-25T00:00:00Z');
INSERT INTO audit.rate_mismatches (session_id, applied_rate, tariff_rate, audited_at)
SELECT s.session_id, s.rate_per_kwh, t.rate_per_kwh, TIMESTAMP('2026-11-25T07:02:00Z')
FROM raw.rated_sessions s JOIN pricing.tariffs t
  ON t.tariff_class = s.tariff_class AND s.stopped_at >= t.effective_from AND s.stopped_at < t.effective_to
WHERE s.rate_per_kwh <> t.rate_per_kwh;

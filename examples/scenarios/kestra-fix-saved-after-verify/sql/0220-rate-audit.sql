-- 02:20: finance.rate_audit writes one row per mispriced session (a report, not a gate).
INSERT INTO rate_mismatches
SELECT s.session_id, s.rate_per_kwh, t.rate_per_kwh, '2026-11-25T02:20:00.000Z'
FROM rated_sessions s JOIN tariffs t
  ON t.tariff_class = s.tariff_class AND s.stopped_at >= t.effective_from AND s.stopped_at < t.effective_to
WHERE s.rate_per_kwh <> t.rate_per_kwh;

-- 02:20: finance.rate_audit writes one row per mispriced session (a report, not a gate).
INSERT INTO audit.rate_mismatches (session_id, applied_rate, tariff_rate, audited_at)
SELECT s.session_id, s.rate_per_kwh, t.rate_per_kwh, TIMESTAMP('2026-11-25T02:20:00Z')
FROM raw.rated_sessions s JOIN pricing.tariffs t
  ON t.tariff_class = s.tariff_class AND s.stopped_at >= t.effective_from AND s.stopped_at < t.effective_to
WHERE s.rate_per_kwh <> t.rate_per_kwh;

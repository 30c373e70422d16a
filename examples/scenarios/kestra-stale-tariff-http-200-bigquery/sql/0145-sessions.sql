-- Sessions 505 to 594, rated by energy.rate_session with the stale KV tariffs (0.49 for DC fast).
INSERT INTO raw.rated_sessions (session_id, site_id, tariff_class, kwh, rate_per_kwh, stopped_at)
SELECT FORMAT('wed-%05d', i), FORMAT('site-%03d', MOD(i, 140)), CASE WHEN i <= 257 THEN 'ac' ELSE 'dc_fast' END,
       ROUND(8 + MOD(i * 41, 520) / 10.0, 1), CASE WHEN i <= 257 THEN 0.29 ELSE 0.49 END,
       TIMESTAMP_SECONDS(UNIX_SECONDS(TIMESTAMP('2026-11-25T00:06:00Z')) + i * 10)
FROM UNNEST(GENERATE_ARRAY(505, 594)) AS i;

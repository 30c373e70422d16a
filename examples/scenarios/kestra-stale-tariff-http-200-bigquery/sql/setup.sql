-- Before the story (Tue 23:30): the tariffs (DC fast moves from 0.49 to 0.56 per kWh at Wed 00:00)
-- and Tuesday's 1,800 sessions, each priced at the rate then in force. The rows are those of the
-- SQLite scenario's setup.sql, in GoogleSQL. On the seed page the tariffs live in the pricing
-- service's PostgreSQL, read through a federated query; here they are the table pricing.tariffs,
-- which energy.rerate_day reads (examples/ev-kestra/flows/energy/rerate_day.yml).
INSERT INTO pricing.tariffs (tariff_class, rate_per_kwh, effective_from, effective_to) VALUES
  ('dc_fast', 0.49, TIMESTAMP('2026-09-01T00:00:00Z'), TIMESTAMP('2026-11-25T00:00:00Z')),
  ('dc_fast', 0.56, TIMESTAMP('2026-11-25T00:00:00Z'), TIMESTAMP('2027-01-01T00:00:00Z')),
  ('ac',      0.29, TIMESTAMP('2026-09-01T00:00:00Z'), TIMESTAMP('2027-01-01T00:00:00Z'));
INSERT INTO raw.rated_sessions (session_id, site_id, tariff_class, kwh, rate_per_kwh, stopped_at)
SELECT FORMAT('tue-%05d', i), FORMAT('site-%03d', MOD(i, 140)), CASE WHEN MOD(i, 9) = 0 THEN 'ac' ELSE 'dc_fast' END,
       ROUND(8 + MOD(i * 37, 520) / 10.0, 1), CASE WHEN MOD(i, 9) = 0 THEN 0.29 ELSE 0.49 END,
       TIMESTAMP_SECONDS(UNIX_SECONDS(TIMESTAMP('2026-11-24T00:00:00Z')) + i * 48)
FROM UNNEST(GENERATE_ARRAY(1, 1800)) AS i;

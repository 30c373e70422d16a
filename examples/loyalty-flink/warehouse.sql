-- The loyalty warehouse before the incident: member balances as the Kafka Connect sink merged them
-- up to Tue 2026-11-24 14:00 UTC, the moment points-balance v4.2 ships.
-- Build it with: sqlite3 warehouse.db < warehouse.sql   (deterministic; safe to re-run)
-- The columns are v4.1's: v4.2 adds last_store_id, which the schema check is there to notice.
-- Timestamps are RFC 3339 UTC with milliseconds ("2026-11-24T13:59:00.000Z"), the format
-- dw::FormatRfc3339 writes, so `updated_at >= :window_start` compares correctly as text.
DROP TABLE IF EXISTS member_balances;
CREATE TABLE member_balances (
  member_id     INTEGER PRIMARY KEY,
  balance       INTEGER NOT NULL,
  tier          TEXT    NOT NULL,
  updated_at    TEXT    NOT NULL
);

-- 500 members; balances between 1,000 and 9,999 points; each member last updated at some minute
-- of the 24 hours before 14:00, so every hour holds active members for avg_active_balance.
WITH RECURSIVE members(id) AS (
  SELECT 1
  UNION ALL
  SELECT id + 1 FROM members WHERE id < 500
)
INSERT INTO member_balances (member_id, balance, tier, updated_at)
SELECT
  id,
  1000 + (id * 7919) % 9000,
  CASE
    WHEN 1000 + (id * 7919) % 9000 < 3000 THEN 'bronze'
    WHEN 1000 + (id * 7919) % 9000 < 7000 THEN 'silver'
    ELSE 'gold'
  END,
  strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24 14:00:00', '-' || (1 + (id * 37) % 1440) || ' minutes')
FROM members;

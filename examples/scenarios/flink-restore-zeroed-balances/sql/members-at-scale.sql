-- The loyalty program at the seed page's scale: 122,000 members (examples/loyalty-flink has the
-- first 500), balances and last updates spread as there, so that the members who shop after the
-- 14:02 restore (half of them by 16:00) are the ~61,000 the 22:00 Braze sync would downgrade.
WITH RECURSIVE members(id) AS (SELECT 501 UNION ALL SELECT id + 1 FROM members WHERE id < 122000)
INSERT INTO member_balances (member_id, balance, tier, updated_at)
SELECT id, 1000 + (id * 7919) % 9000,
       CASE WHEN 1000 + (id * 7919) % 9000 < 3000 THEN 'bronze' WHEN 1000 + (id * 7919) % 9000 < 7000 THEN 'silver' ELSE 'gold' END,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-24 14:00:00', '-' || (1 + (id * 37) % 1440) || ' minutes')
FROM members;
CREATE INDEX IF NOT EXISTS member_balances_updated_at ON member_balances (updated_at);

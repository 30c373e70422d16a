-- The loyalty program before the incident, as the Kafka Connect sink merged it up to Tue 14:00 UTC:
-- 122,000 members (the seed page's ~61,000 who shop after the 14:02 restore are half of them),
-- balances between 1,000 and 9,999 points, each member last updated at some minute of the 24 hours
-- before 14:00. The same rows as examples/loyalty-flink/warehouse.sql and the SQLite scenario's
-- members-at-scale.sql, in GoogleSQL.
INSERT INTO loyalty.member_balances (member_id, balance, tier, updated_at)
SELECT id,
       1000 + MOD(id * 7919, 9000),
       CASE WHEN 1000 + MOD(id * 7919, 9000) < 3000 THEN 'bronze'
            WHEN 1000 + MOD(id * 7919, 9000) < 7000 THEN 'silver'
            ELSE 'gold' END,
       TIMESTAMP_SECONDS(UNIX_SECONDS(TIMESTAMP('2026-11-24T14:00:00Z')) - 60 * (1 + MOD(id * 37, 1440)))
FROM UNNEST(GENERATE_ARRAY(1, 122000)) AS id;

-- 16:25: v4.1, redeployed from the 14:00 savepoint, replays points-events from the 14:00 offsets
-- and catches up; upsert-kafka rewrites every balance touched since 14:00 and the sink merges the
-- corrections: each member who shopped after the restore holds the balance kept in the savepoint
-- plus the points of that purchase.
UPDATE loyalty.member_balances
   SET balance = 1000 + MOD(member_id * 7919, 9000) + MOD(member_id * 13, 40),
       updated_at = TIMESTAMP('2026-11-24T16:25:00Z')
 WHERE updated_at >= TIMESTAMP('2026-11-24T14:02:00Z');

-- 15:55: members who shopped since the restore shop again; v4.2 still adds to balances that
-- restarted from zero.
UPDATE loyalty.member_balances
   SET balance = 5 + MOD(member_id * 29, 900), updated_at = TIMESTAMP('2026-11-24T15:55:00Z')
 WHERE MOD(member_id, 8) = 0;

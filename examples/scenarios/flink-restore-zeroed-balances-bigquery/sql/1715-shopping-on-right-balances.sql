-- 17:15: more purchases on the right balances.
UPDATE loyalty.member_balances
   SET balance = balance + MOD(member_id * 11, 60), updated_at = TIMESTAMP('2026-11-24T17:15:00Z')
 WHERE MOD(member_id, 16) = 9;

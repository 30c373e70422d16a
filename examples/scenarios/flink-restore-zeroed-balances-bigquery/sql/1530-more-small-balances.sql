-- 15:30: the app and the warehouse keep filling with small balances.
UPDATE loyalty.member_balances
   SET balance = 5 + MOD(member_id * 23, 800), updated_at = TIMESTAMP('2026-11-24T15:30:00Z')
 WHERE MOD(member_id, 8) = 3;

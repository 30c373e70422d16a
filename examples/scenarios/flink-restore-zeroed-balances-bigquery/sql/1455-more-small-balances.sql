-- 14:55: and more.
UPDATE loyalty.member_balances
   SET balance = 5 + MOD(member_id * 19, 700), updated_at = TIMESTAMP('2026-11-24T14:55:00Z')
 WHERE MOD(member_id, 8) = 2;

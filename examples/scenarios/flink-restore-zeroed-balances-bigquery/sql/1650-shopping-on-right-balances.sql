-- 16:50 onwards: members shop as every afternoon; v4.1 adds each purchase to the balance it kept.
UPDATE loyalty.member_balances
   SET balance = balance + MOD(member_id * 11, 60), updated_at = TIMESTAMP('2026-11-24T16:50:00Z')
 WHERE MOD(member_id, 16) = 1;

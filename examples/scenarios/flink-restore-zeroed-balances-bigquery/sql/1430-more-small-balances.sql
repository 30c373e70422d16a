-- 14:30: more members shop; each balance written is a restart from zero.
UPDATE loyalty.member_balances
   SET balance = 5 + MOD(member_id * 17, 600), updated_at = TIMESTAMP('2026-11-24T14:30:00Z')
 WHERE MOD(member_id, 8) = 1;

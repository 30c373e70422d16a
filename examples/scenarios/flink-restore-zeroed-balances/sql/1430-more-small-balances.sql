-- 14:30: more members shop; each balance written is a restart from zero.
UPDATE member_balances SET balance = 5 + (member_id * 17) % 600, updated_at = '2026-11-24T14:30:00.000Z'
 WHERE member_id % 8 = 1;

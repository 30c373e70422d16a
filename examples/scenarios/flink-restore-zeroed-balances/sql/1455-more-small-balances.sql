-- 14:55: and more.
UPDATE member_balances SET balance = 5 + (member_id * 19) % 700, updated_at = '2026-11-24T14:55:00.000Z'
 WHERE member_id % 8 = 2;

-- 15:30: the app and the warehouse keep filling with small balances.
UPDATE member_balances SET balance = 5 + (member_id * 23) % 800, updated_at = '2026-11-24T15:30:00.000Z'
 WHERE member_id % 8 = 3;

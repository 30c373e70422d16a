-- 17:15: more purchases on the right balances.
UPDATE member_balances SET balance = balance + (member_id * 11) % 60, updated_at = '2026-11-24T17:15:00.000Z'
 WHERE member_id % 16 = 9;

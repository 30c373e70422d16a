-- 16:50 onwards: members shop as every afternoon; v4.1 adds each purchase to the balance it kept.
UPDATE member_balances SET balance = balance + (member_id * 11) % 60, updated_at = '2026-11-24T16:50:00.000Z'
 WHERE member_id % 16 = 1;

-- 15:35: the sink merges ordinary purchases: balances move by a few points, as every hour.
UPDATE member_balances SET balance = balance + (member_id * 17) % 40, updated_at = '2026-11-24T15:35:00.000Z'
 WHERE member_id % 8 = 3;

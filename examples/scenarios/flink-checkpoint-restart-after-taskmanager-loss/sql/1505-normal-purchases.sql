-- 15:05: the sink merges ordinary purchases: balances move by a few points, as every hour.
UPDATE member_balances SET balance = balance + (member_id * 13) % 40, updated_at = '2026-11-24T15:05:00.000Z'
 WHERE member_id % 8 = 2;

-- 15:55: members who shopped since the restore shop again; v4.2 still adds to balances that
-- restarted from zero.
UPDATE member_balances SET balance = 5 + (member_id * 29) % 900, updated_at = '2026-11-24T15:55:00.000Z'
 WHERE member_id % 8 = 0;

-- 14:05: the BigQuery sink merges what v4.2 writes since its restore started every balance from
-- zero: 60 members who shopped since 14:02 now hold a few hundred points (their next purchase).
UPDATE member_balances SET balance = 5 + (member_id * 13) % 400, updated_at = '2026-11-24T14:05:00.000Z'
 WHERE member_id % 8 = 0;

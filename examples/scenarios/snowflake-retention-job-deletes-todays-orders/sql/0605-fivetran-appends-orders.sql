-- 06:05: Fivetran's sync appends the twelve orders placed since 05:30.
INSERT INTO analytics.shop.orders (id, customer_id, amount, placed_at) VALUES
  (289, 'c143', 72.00, to_timestamp_ntz('2026-12-01T05:35:00Z')),
  (290, 'c180', 85.00, to_timestamp_ntz('2026-12-01T05:40:00Z')),
  (291, 'c006', 8.00, to_timestamp_ntz('2026-12-01T05:45:00Z')),
  (292, 'c043', 21.00, to_timestamp_ntz('2026-12-01T05:50:00Z')),
  (293, 'c080', 34.00, to_timestamp_ntz('2026-12-01T05:55:00Z')),
  (294, 'c117', 47.00, to_timestamp_ntz('2026-12-01T06:00:00Z')),
  (295, 'c154', 60.00, to_timestamp_ntz('2026-12-01T06:05:00Z')),
  (296, 'c191', 73.00, to_timestamp_ntz('2026-12-01T06:10:00Z')),
  (297, 'c017', 86.00, to_timestamp_ntz('2026-12-01T06:15:00Z')),
  (298, 'c054', 9.00, to_timestamp_ntz('2026-12-01T06:20:00Z')),
  (299, 'c091', 22.00, to_timestamp_ntz('2026-12-01T06:25:00Z')),
  (300, 'c128', 35.00, to_timestamp_ntz('2026-12-01T06:30:00Z'));

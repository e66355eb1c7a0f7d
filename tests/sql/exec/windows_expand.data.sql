CREATE TABLE s (id BIGINT NOT NULL, grp TEXT NOT NULL, v BIGINT, tags TEXT[]);
INSERT INTO s VALUES
  (1, 'a', 10, ARRAY['x', 'y']),
  (2, 'a', 20, ARRAY['y']),
  (3, 'b', 5, NULL),
  (4, 'b', 5, ARRAY[]::TEXT[]),
  (5, 'a', NULL, ARRAY['z', 'z']);

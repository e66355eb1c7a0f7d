CREATE TABLE s (id BIGINT NOT NULL, grp TEXT NOT NULL, pos BIGINT, v BIGINT);
INSERT INTO s VALUES
  (1, 'a', 1, 10),
  (2, 'a', 2, NULL),
  (3, 'a', 2, 30),
  (4, 'a', 5, 40),
  (5, 'a', NULL, 50),
  (6, 'b', 1, 7),
  (7, 'b', NULL, NULL),
  (8, 'b', 3, 9);

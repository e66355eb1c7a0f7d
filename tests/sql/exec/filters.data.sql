CREATE TABLE people (id BIGINT NOT NULL, name TEXT NOT NULL, age BIGINT, city TEXT, active BOOLEAN, score DOUBLE PRECISION);
INSERT INTO people VALUES
  (1, 'ann', 30, 'Oslo', TRUE, 1.5),
  (2, 'bob', NULL, 'Rome', FALSE, 2.5),
  (3, 'cid', 45, NULL, NULL, NULL),
  (4, 'dan', 17, 'Oslo', TRUE, -1.0),
  (5, 'eve', 30, 'Rome', NULL, 10.0);

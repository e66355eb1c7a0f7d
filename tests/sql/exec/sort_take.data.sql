CREATE TABLE scores (id BIGINT NOT NULL, name TEXT NOT NULL, points BIGINT, played DATE);
INSERT INTO scores VALUES
  (1, 'a', 10, '2024-01-01'),
  (2, 'b', NULL, '2024-01-02'),
  (3, 'c', 30, '2024-01-03'),
  (4, 'd', 20, NULL),
  (5, 'e', 30, '2024-01-05'),
  (6, 'f', 5, '2024-01-06');

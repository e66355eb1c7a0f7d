CREATE TABLE orders (order_id BIGINT NOT NULL, status BIGINT, placed DATE NOT NULL, amount DOUBLE PRECISION);
INSERT INTO orders VALUES
  (1, 1, '2024-02-28', 10.0),
  (2, 2, '2024-02-29', 5.5),
  (3, 9, '2024-02-29', 1.0),
  (4, NULL, '2024-03-02', 2.0),
  (5, 1, '2024-03-05', 7.0);

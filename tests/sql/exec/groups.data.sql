CREATE TABLE sales (id BIGINT NOT NULL, region TEXT, product TEXT NOT NULL, qty BIGINT NOT NULL, price NUMERIC(38,2) NOT NULL, discount DOUBLE PRECISION, sold_on DATE NOT NULL, customer_id BIGINT);
INSERT INTO sales VALUES
  (1, 'EU', 'apple', 2, 1.50, 0.25, '2024-01-05', 10),
  (2, 'EU', 'apple', 3, 1.50, NULL, '2024-01-06', 10),
  (3, 'EU', 'pear',  1, 2.00, 0.75, '2024-02-01', 11),
  (4, 'US', 'apple', 5, 1.25, NULL, '2024-01-05', 12),
  (5, NULL, 'pear',  4, 2.00, NULL, '2024-03-01', NULL),
  (6, NULL, 'kiwi',  1, 3.00, 0.5,  '2024-03-02', 13);

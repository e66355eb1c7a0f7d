CREATE TABLE orders (order_id BIGINT, customer_id BIGINT, amount DOUBLE PRECISION);
INSERT INTO orders VALUES (1, 10, 20.0), (2, 10, 30.0), (3, 20, 5.0), (4, NULL, 7.5), (NULL, 20, 1.0), (5, 30, -1.0), (6, 40, 12.5);
CREATE TABLE customers (customer_id BIGINT NOT NULL, country TEXT);
INSERT INTO customers VALUES (10, 'NO'), (20, 'NO'), (20, 'SE'), (40, NULL);

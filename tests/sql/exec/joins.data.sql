CREATE TABLE orders (order_id BIGINT NOT NULL, customer_id BIGINT, region TEXT, amount BIGINT NOT NULL);
INSERT INTO orders VALUES (1, 10, 'EU', 100), (2, 10, 'US', 200), (3, 20, 'EU', 300), (4, NULL, 'EU', 400), (5, 99, 'EU', 500), (6, 10, 'EU', 600);
CREATE TABLE customers (customer_id BIGINT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL);
INSERT INTO customers VALUES (10, 'EU', 'Ann'), (10, 'US', 'Ann US'), (20, 'EU', 'Bob'), (30, 'EU', 'Cid');
CREATE TABLE blocked (customer_id BIGINT);
INSERT INTO blocked VALUES (20), (NULL);

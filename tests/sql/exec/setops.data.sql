CREATE TABLE a_src (id BIGINT NOT NULL, name TEXT);
INSERT INTO a_src VALUES (1, 'x'), (1, 'x'), (2, 'y'), (3, NULL);
CREATE TABLE b_src (id BIGINT NOT NULL, name TEXT);
INSERT INTO b_src VALUES (2, 'y'), (3, NULL), (4, 'z');
CREATE TABLE c_src (id BIGINT NOT NULL, name TEXT);
INSERT INTO c_src VALUES (1, 'x'), (4, 'z');

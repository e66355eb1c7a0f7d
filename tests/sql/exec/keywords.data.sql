CREATE TABLE "user" ("order" BIGINT NOT NULL, "limit" BIGINT, "table" TEXT NOT NULL, "value" DOUBLE PRECISION, "key" TEXT, "rows" BIGINT, "position" BIGINT, "end" TEXT, "case" TEXT, "país" TEXT);
INSERT INTO "user" VALUES
  (1, 5, 't1', 1.5, 'k1', 10, 3, 'e1', 'a', 'Norge'),
  (2, 1, 't1', 2.5, 'k2', 20, 7, 'e2', 'b', 'España'),
  (3, 9, 't2', NULL, 'k1', NULL, NULL, NULL, 'c', NULL),
  (4, 7, 't2', 4.0, NULL, 40, 1, 'e4', 'x', 'Éire');
CREATE TABLE group_ref ("key" TEXT NOT NULL, group_id BIGINT NOT NULL, order_total BIGINT);
INSERT INTO group_ref VALUES ('k1', 100, 1000), ('k2', 200, NULL);

CREATE TABLE "select" (id BIGINT NOT NULL, "date" DATE NOT NULL, "from" TEXT, "unit price" DOUBLE PRECISION, "it's ""q""" TEXT);
INSERT INTO "select" VALUES
  (1, '2024-01-01', 'web', 2.5, 'a'),
  (2, '2024-01-01', 'shop', 0.5, 'b'),
  (3, '2024-01-02', NULL, 4.0, NULL),
  (4, '2024-01-02', 'web', -1.0, 'd');
CREATE TABLE "group" ("from" TEXT NOT NULL, "in" TEXT);
INSERT INTO "group" VALUES ('web', 'online'), ('shop', NULL);

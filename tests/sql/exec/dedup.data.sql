CREATE TABLE events (id BIGINT NOT NULL, "user" TEXT, kind TEXT NOT NULL, "at" TIMESTAMP, amount BIGINT);
INSERT INTO events VALUES
  (1, 'u1', 'click', '2024-01-01 10:00:00', 5),
  (2, 'u1', 'click', '2024-01-01 09:00:00', 5),
  (3, 'u1', 'view',  '2024-01-01 11:00:00', NULL),
  (4, 'u2', 'click', NULL, 7),
  (5, NULL, 'view',  '2024-01-02 08:00:00', NULL),
  (6, NULL, 'view',  '2024-01-02 08:00:00', NULL);

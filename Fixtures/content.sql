-- The logical content of every fixture. Deterministic: no random values, no timestamps.
BEGIN;
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, data BLOB, note TEXT);
CREATE INDEX item_name ON item(name);
CREATE TABLE event(id INTEGER PRIMARY KEY AUTOINCREMENT, itemId INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TRIGGER item_insert AFTER INSERT ON item BEGIN
    INSERT INTO event(itemId, kind) VALUES (new.id, 'insert');
END;
CREATE VIEW pricedItem AS SELECT name, price FROM item WHERE price IS NOT NULL;
CREATE TABLE filler(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
INSERT INTO item(id, name, price, data, note) VALUES
    (1, 'apple', 1.5, x'00FF10', NULL),
    (2, 'café ☕', -2.25, x'', 'naïve'),
    (3, 'zeta', NULL, NULL, '');
-- The AUTOINCREMENT counter (3) stays above the largest remaining id (2).
DELETE FROM event WHERE itemId = 3;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO filler(id, body) SELECT i, printf('%03d', i) || substr(replace(hex(zeroblob(150)), '00', 'ab'), 1, 197) FROM n;
PRAGMA user_version = 42;
COMMIT;

-- The full-text index again, each review under a key ordered like the inbox: the hour of its date
-- (coalesce(created_at, first_seen_at), as in 0008's indexes; clamped to ±2^22 hours, years 1491 to 2448)
-- times 2^40, plus its row id (row ids stay below 2^40). FTS5 walks a word's matches in key order and takes
-- key ranges, so a search reads its newest matches straight from the index, and a date range or a page's
-- cursor is a key range (src/store/inbox.ts). The review's row id is the key's low 40 bits.
--
-- Contentless (content=''): an external-content table would need a view giving the key, and a view on
-- `reviews` makes SQLite refuse the ALTER TABLE ... RENAME with which drizzle-kit rebuilds a table. So the
-- triggers hand the index a review's words, and the old ones to forget (the 'delete' command), as before.
-- Keys above 2^53 do not fit a JavaScript number: read `rowid & 1099511627775` (the row id), not the key.
DROP TRIGGER `reviews_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `reviews_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `reviews_fts_update`;
--> statement-breakpoint
DROP TABLE `reviews_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `reviews_fts` USING fts5(content, reviewer, content='', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `reviews_fts_insert` AFTER INSERT ON `reviews` BEGIN
  INSERT INTO reviews_fts(rowid, content, reviewer) VALUES (
    (max(-4194304, min(4194303, cast(coalesce(new.created_at, new.first_seen_at) / 3600000 AS integer))) << 40) + new.id,
    new.content, new.reviewer);
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_fts_delete` AFTER DELETE ON `reviews` BEGIN
  INSERT INTO reviews_fts(reviews_fts, rowid, content, reviewer) VALUES ('delete',
    (max(-4194304, min(4194303, cast(coalesce(old.created_at, old.first_seen_at) / 3600000 AS integer))) << 40) + old.id,
    old.content, old.reviewer);
END;
--> statement-breakpoint
-- A new date moves the review to another key, as new words do.
CREATE TRIGGER `reviews_fts_update` AFTER UPDATE OF content, reviewer, created_at, first_seen_at ON `reviews`
WHEN old.content IS NOT new.content OR old.reviewer IS NOT new.reviewer
  OR coalesce(old.created_at, old.first_seen_at) IS NOT coalesce(new.created_at, new.first_seen_at) BEGIN
  INSERT INTO reviews_fts(reviews_fts, rowid, content, reviewer) VALUES ('delete',
    (max(-4194304, min(4194303, cast(coalesce(old.created_at, old.first_seen_at) / 3600000 AS integer))) << 40) + old.id,
    old.content, old.reviewer);
  INSERT INTO reviews_fts(rowid, content, reviewer) VALUES (
    (max(-4194304, min(4194303, cast(coalesce(new.created_at, new.first_seen_at) / 3600000 AS integer))) << 40) + new.id,
    new.content, new.reviewer);
END;
--> statement-breakpoint
-- Reviews stored before this migration, in key order: FTS5 writes out the terms it holds each time a key
-- comes lower than the one before, and filling it in row order took about twice as long at 1,000,000
-- reviews (bench/README.md has the migration's time).
INSERT INTO reviews_fts(rowid, content, reviewer)
  SELECT (max(-4194304, min(4194303, cast(coalesce(created_at, first_seen_at) / 3600000 AS integer))) << 40) + id,
    content, reviewer
  FROM reviews ORDER BY 1;
--> statement-breakpoint
INSERT INTO reviews_fts(reviews_fts) VALUES ('optimize');

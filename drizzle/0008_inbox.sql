-- The inbox's date: the review's own, or when it was first seen when the API's date did not parse. The
-- query (src/store/inbox.ts) spells the expression exactly like this so SQLite uses these indexes; the row
-- id, implicit in every index, breaks ties between reviews of the same date.
CREATE INDEX `reviews_inbox` ON `reviews` (coalesce(created_at, first_seen_at));
--> statement-breakpoint
CREATE INDEX `reviews_app_inbox` ON `reviews` (`app_handle`, coalesce(created_at, first_seen_at));
--> statement-breakpoint
-- Full-text search over the reviews, as an external-content FTS5 table: the text lives once, in `reviews`,
-- and these triggers keep the index in step with every insert, edit and delete.
CREATE VIRTUAL TABLE `reviews_fts` USING fts5(content, reviewer, content='reviews', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `reviews_fts_insert` AFTER INSERT ON `reviews` BEGIN
  INSERT INTO reviews_fts(rowid, content, reviewer) VALUES (new.id, new.content, new.reviewer);
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_fts_delete` AFTER DELETE ON `reviews` BEGIN
  INSERT INTO reviews_fts(reviews_fts, rowid, content, reviewer) VALUES ('delete', old.id, old.content, old.reviewer);
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_fts_update` AFTER UPDATE OF content, reviewer ON `reviews`
WHEN old.content IS NOT new.content OR old.reviewer IS NOT new.reviewer BEGIN
  INSERT INTO reviews_fts(reviews_fts, rowid, content, reviewer) VALUES ('delete', old.id, old.content, old.reviewer);
  INSERT INTO reviews_fts(rowid, content, reviewer) VALUES (new.id, new.content, new.reviewer);
END;
--> statement-breakpoint
-- Reviews stored before this migration.
INSERT INTO reviews_fts(reviews_fts) VALUES ('rebuild');

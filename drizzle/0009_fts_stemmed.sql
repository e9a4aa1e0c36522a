-- The full-text index again, with the Porter stemmer in front of unicode61: "refund" finds "refunds" and
-- "refunded" as a whole word, so searches need no prefix queries, which FTS5 cannot check one review at a
-- time without re-reading every matching term (src/store/inbox.ts walks the dates that way for frequent
-- words; bench/README.md has the figures).
DROP TRIGGER `reviews_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `reviews_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `reviews_fts_update`;
--> statement-breakpoint
DROP TABLE `reviews_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `reviews_fts` USING fts5(content, reviewer, content='reviews', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
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
INSERT INTO reviews_fts(reviews_fts) VALUES ('rebuild');

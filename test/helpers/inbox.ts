import type { Store } from '../../src/store/db.js';
import type { ReviewTopic } from '../../src/topics/index.js';
import { storeReview } from './reviews.js';

export interface SeedReview {
  app?: string;
  rating?: number;
  content?: string;
  reviewer?: string;
  location?: string;
  /** Epoch ms; null stores an unparseable date ("Invalid Date"). */
  createdAt?: number | null;
  firstSeenAt?: number;
  timeUsingApp?: string;
  appUrl?: string;
  /** Its stored topics; by default those the built-in topics find in `content`. */
  topics?: ReviewTopic[];
}

/** Rows for the inbox written the way a poll writes them (one poll run per app), without the network. */
export class ReviewSeeder {
  readonly #store: Store;
  readonly #runs = new Map<string, number>();
  #n = 0;

  constructor(store: Store) {
    this.#store = store;
    // Another seeder may have written to this store: identities must not collide with its rows (its alerts
    // took numbers too, so its identities can run ahead of the row ids).
    this.#n = (
      store.db.$client
        .prepare(
          `select max(coalesce(max(id), 0),
             coalesce(max(case when identity glob 'r[0-9]*' then cast(substr(identity, 2) as integer) end), 0)) as n
           from reviews`,
        )
        .get() as { n: number }
    ).n;
  }

  #runOf(app: string): number {
    let run = this.#runs.get(app);
    if (run === undefined) {
      const client = this.#store.db.$client;
      client.prepare('insert or ignore into apps (handle) values (?)').run(app);
      run = Number(
        client
          .prepare(
            `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews,
             edited_reviews) values (?, 0, 0, 'ok', 1, 1, 0, 0)`,
          )
          .run(app).lastInsertRowid,
      );
      this.#runs.set(app, run);
    }
    return run;
  }

  review(seed: SeedReview = {}): number {
    const n = ++this.#n;
    const app = seed.app ?? 'shop';
    const createdAt = seed.createdAt === undefined ? Date.UTC(2026, 10, 1) + n * 60_000 : seed.createdAt;
    return storeReview(this.#store.db, {
      appHandle: app,
      identity: `r${n}`,
      fingerprint: `f${n}`,
      reviewer: seed.reviewer ?? `Reviewer ${n}`,
      location: seed.location ?? 'Canada',
      rating: seed.rating ?? 1,
      content: seed.content ?? `Review number ${n}`,
      createdAt: createdAt === null ? null : new Date(createdAt),
      timeUsingApp: seed.timeUsingApp ?? '2 months using the app',
      appName: `${app} app`,
      appUrl: seed.appUrl ?? `https://apps.example.com/${app}`,
      firstSeenAt: new Date(seed.firstSeenAt ?? createdAt ?? Date.UTC(2026, 10, 1)),
      pollRunId: this.#runOf(app),
      ...(seed.topics && { topics: seed.topics }),
    });
  }

  /** A review alert about this review, as the outbox stores one, with a delivery per channel. */
  alert(
    reviewRowId: number,
    priority: 'critical' | 'high' | 'medium' | 'low',
    channels: Array<{ channel: string; status: 'pending' | 'held' | 'sent' | 'failed' }> = [],
    at: number = Date.UTC(2026, 10, 2),
  ): number {
    const client = this.#store.db.$client;
    const review = client
      .prepare<[number], { app: string }>('select app_handle as app from reviews where id = ?')
      .get(reviewRowId);
    if (!review) throw new Error(`no review ${reviewRowId}`);
    const id = Number(
      client
        .prepare(
          `insert into alerts (app_handle, kind, dedupe_key, priority, score, review_row_id, payload, created_at)
           values (?, 'review', ?, ?, 50, ?, '{}', ?)`,
        )
        .run(review.app, `review-${reviewRowId}-${++this.#n}`, priority, reviewRowId, at).lastInsertRowid,
    );
    for (const { channel, status } of channels) {
      client
        .prepare(
          `insert into deliveries (alert_id, channel, app_handle, status, created_at, sent_at)
           values (?, ?, ?, ?, ?, ?)`,
        )
        .run(id, channel, review.app, status, at, status === 'sent' ? at + 40_000 : null);
    }
    return id;
  }

  user(name: string): void {
    this.#store.db.$client
      .prepare('insert into users (name, password_hash, created_at) values (?, ?, 0)')
      .run(name, 'scrypt$test');
  }
}

/**
 * How many word occurrences the full-text index holds that an index built afresh from the reviews would
 * not, and the other way round: 0 when the triggers kept it in step (drizzle/0010_fts_by_date.sql). The
 * index is contentless, so FTS5's own integrity-check cannot compare it with the reviews.
 */
export function fullTextDrift(store: Store): number {
  const client = store.db.$client;
  const sql = client
    .prepare<[], { sql: string }>("select sql from sqlite_master where name = 'reviews_fts'")
    .get()?.sql;
  const tokenize = sql && /tokenize\s*=\s*'([^']*)'/.exec(sql)?.[1];
  if (!tokenize) throw new Error('no full-text index with a tokenizer');
  client.exec(`
    drop table if exists temp.fts_fresh;
    create virtual table temp.fts_fresh using fts5(content, reviewer, content='', tokenize='${tokenize}');
    insert into temp.fts_fresh(rowid, content, reviewer)
      select (max(-4194304, min(4194303, cast(coalesce(created_at, first_seen_at) / 3600000 as integer))) << 40) + id,
        content, reviewer
      from reviews order by 1;
    create virtual table if not exists temp.fts_fresh_words using fts5vocab('temp', 'fts_fresh', 'instance');
    create virtual table if not exists temp.fts_words using fts5vocab('main', 'reviews_fts', 'instance');
  `);
  const n = client
    .prepare<[], { n: number }>(
      `select (select count(*) from (select term, doc, col, offset from temp.fts_words
         except select term, doc, col, offset from temp.fts_fresh_words))
       + (select count(*) from (select term, doc, col, offset from temp.fts_fresh_words
         except select term, doc, col, offset from temp.fts_words)) as n`,
    )
    .get()?.n;
  client.exec('drop table temp.fts_fresh_words; drop table temp.fts_words; drop table temp.fts_fresh');
  return n ?? Number.NaN;
}

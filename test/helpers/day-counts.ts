/**
 * The per-day counts (drizzle/0020_day_counts.sql, 0024_topic_counts_in_day_row.sql) as stored, and as
 * counting the rows themselves gives them: the two are equal while the triggers keep the tables right.
 */
import { DAY_ROW_COLUMNS } from '../../src/store/day-row-topics.js';
import type { StoreDb } from '../../src/store/db.js';

const DAY = 86_400_000;

/** "app day reviews stars" and "app day topic reviews stars", sorted. */
export interface DayCounts {
  days: string[];
  topicDays: string[];
}

/** The day rows' topic columns read as topic_day_counts rows would hold them: one line per topic counted. */
export function storedDayCounts(db: StoreDb): DayCounts {
  const client = db.$client;
  const dayRows = client
    .prepare<[], Record<string, number | string>>('select * from review_day_counts')
    .all();
  const days = dayRows.map((r) => `${r.app_handle} ${r.day} ${r.reviews} ${r.stars}`);
  const inRows = dayRows.flatMap((r) =>
    DAY_ROW_COLUMNS.flatMap(({ topic, ...columns }) => {
      return r[columns.reviews] === 0
        ? []
        : [`${r.app_handle} ${r.day} ${topic} ${r[columns.reviews]} ${r[columns.stars]}`];
    }),
  );
  const topicDays = client
    .prepare<[], { app_handle: string; day: number; topic: string; reviews: number; stars: number }>(
      'select * from topic_day_counts',
    )
    .all()
    .map((r) => `${r.app_handle} ${r.day} ${r.topic} ${r.reviews} ${r.stars}`);
  return { days: days.sort(), topicDays: [...inRows, ...topicDays].sort() };
}

/** Counted in JS from each review's date, stars and stored topics JSON, not by SQL. */
export function countedDayCounts(db: StoreDb): DayCounts {
  const rows = db.$client
    .prepare<[], { app: string; at: number; rating: number; topics: string }>(
      'select app_handle as app, coalesce(created_at, first_seen_at) as at, rating, topics from reviews',
    )
    .all();
  const days = new Map<string, [number, number]>();
  const topicDays = new Map<string, [number, number]>();
  const bump = (map: Map<string, [number, number]>, key: string, rating: number) => {
    const [n, stars] = map.get(key) ?? [0, 0];
    map.set(key, [n + 1, stars + rating]);
  };
  for (const row of rows) {
    const day = Math.floor(row.at / DAY);
    bump(days, `${row.app} ${day}`, row.rating);
    const names = new Set((JSON.parse(row.topics) as Array<{ name?: string }>).flatMap((t) => t.name ?? []));
    for (const name of names) bump(topicDays, `${row.app} ${day} ${name}`, row.rating);
  }
  const lines = (map: Map<string, [number, number]>) =>
    [...map].map(([key, [n, s]]) => `${key} ${n} ${s}`).sort();
  return { days: lines(days), topicDays: lines(topicDays) };
}

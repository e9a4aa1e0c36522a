/**
 * An app's page's topics (docs/inbox.md, "An app's page"): its topics week by week (reviews, share, average
 * stars), the phrases emerging in its low reviews against its own history (src/topics/phrases.ts), with
 * quotes, and its topics against its competitors' (or, for a competitor, against your apps).
 */
import type { Config } from '../config/index.js';
import { type EmergingPhrase, emergingPhrases, phraseCounts, weekOf } from '../topics/index.js';
import type { StoreDb } from './db.js';
import { appTopicWeeks, type TopicWeekRow } from './topic-summary.js';
import { type TopicComparison, topicsOverview } from './topics-overview.js';

const DAY_MS = 86_400_000;
/** Weeks of topics shown, the current one last. */
export const TOPIC_WEEKS = 8;
/** The emerging phrases' period, and the history they are compared with (the 90 days before it). */
const PHRASE_DAYS = 7;
const PHRASE_HISTORY_DAYS = 90;
/** The comparison with competitors covers this many days. */
const VERSUS_DAYS = 30;

export interface AppTopicsPage {
  /** The Mondays of the weeks shown, oldest first. */
  weeks: string[];
  rows: TopicWeekRow[];
  emerging: EmergingPhrase[];
  versus: TopicComparison[];
}

interface LowReview {
  id: number;
  reviewer: string;
  content: string;
}

function lowReviews(db: StoreDb, handle: string, maxRating: number, from: number, to: number): LowReview[] {
  return db.$client
    .prepare<[string, number, number, number], LowReview>(
      `select id, reviewer, content from reviews where app_handle = ?
       and coalesce(created_at, first_seen_at) >= ? and coalesce(created_at, first_seen_at) < ? and rating <= ?`,
    )
    .all(handle, from, to, maxRating);
}

/** The apps the page compares with: the competitors of an own app, the own apps of a competitor. */
function comparedWith(config: Config, handle: string): string[] {
  const competitor = config.apps.find((a) => a.handle === handle)?.role === 'competitor';
  const others = config.apps.filter((a) => (a.role === 'competitor') !== competitor).map((a) => a.handle);
  return others.length === 0 ? [] : [handle, ...others];
}

export function appTopicsPage(db: StoreDb, config: Config, handle: string, now: Date): AppTopicsPage {
  const to = now.getTime();
  const first = Date.parse(weekOf(new Date(to - (TOPIC_WEEKS - 1) * 7 * DAY_MS)));
  const weeks = Array.from({ length: TOPIC_WEEKS }, (_, i) =>
    new Date(first + i * 7 * DAY_MS).toISOString().slice(0, 10),
  );
  const maxRating = config.alerts.lowRating.maxRating;
  const since = to - PHRASE_DAYS * DAY_MS;
  const current = lowReviews(db, handle, maxRating, since, to).map((r) => ({ ...r, id: String(r.id) }));
  const history = lowReviews(db, handle, maxRating, since - PHRASE_HISTORY_DAYS * DAY_MS, since);
  const compared = comparedWith(config, handle);
  return {
    weeks,
    rows: appTopicWeeks(db, handle, new Date(first), now),
    emerging: emergingPhrases(current, phraseCounts(history.map((r) => r.content))),
    versus:
      compared.length === 0
        ? []
        : topicsOverview(db, config, { from: new Date(to - VERSUS_DAYS * DAY_MS), to: now }, compared)
            .comparisons,
  };
}

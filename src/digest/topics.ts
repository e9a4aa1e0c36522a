/**
 * The digest's "What reviewers talk about" section: each app's top topics of the period with their
 * arrows against the eight weeks before (topics/trends.ts), the phrases emerging in its low reviews with
 * one quote each (topics/phrases.ts), and the own apps' top topics against the competitors' shares.
 * Each review's topics are those stored with it (`reviews.topics`, the rows /topics counts), so the digest
 * and /topics agree and no text is matched here. Read inside the digest's one read transaction.
 */
import type { Db } from '../store/db.js';
import { reviewsSince } from '../store/history.js';
import { emergingPhrases, phraseCounts, topicTrend } from '../topics/index.js';
import type { DigestPeriod } from './period.js';
import { trailingWeeks } from './period.js';
import type { AppRole } from './types.js';

export const MAX_TOPICS = 5;
export const MAX_PHRASES = 3;
/** Weeks before the period its shares are compared with: the trend rule's baseline. */
const HISTORY_WEEKS = 8;

export interface DigestTopic {
  name: string;
  /** Reviews of the period about it, and their share of the app's reviews (0..1). */
  reviews: number;
  share: number;
  /** Against the eight weeks before, under the trend rule: flat unless it means something. */
  direction: 'up' | 'down' | 'flat';
  /** The share over the weeks before's; undefined when they had none (new). */
  ratio: number | undefined;
}

export interface DigestPhrase {
  phrase: string;
  reviews: number;
  /** One quote, around the phrase; untrusted. */
  quote: string;
}

export interface DigestTopicApp {
  handle: string;
  title: string;
  role: AppRole;
  /** Reviews of the period. */
  reviews: number;
  /** Most talked about first, at most MAX_TOPICS. */
  topics: DigestTopic[];
  /** New or rising in its low reviews, at most MAX_PHRASES. */
  phrases: DigestPhrase[];
  /** Every topic's share of its reviews, for the comparison with other apps. */
  shares: Record<string, number>;
}

/** One topic's share of each app's reviews: the own apps against the competitors. */
export interface TopicVersus {
  topic: string;
  apps: Array<{ handle: string; title: string; role: AppRole; share: number | null }>;
}

export interface DigestTopics {
  apps: DigestTopicApp[];
  /** The own apps' top topics across every app; empty without competitors. */
  versus: TopicVersus[];
}

interface TopicReview {
  handle: string;
  id: string;
  reviewer: string;
  content: string;
  rating: number;
  at: Date;
  topics: string[];
}

export interface TopicsInput {
  apps: ReadonlyArray<{ handle: string; title: string; role: AppRole }>;
  period: DigestPeriod;
  maxRating: number;
}

/** Null when no app had a review in the period: the section says nothing then. */
export function collectTopics(db: Db, input: TopicsInput): DigestTopics | null {
  const { period } = input;
  const weeks = trailingWeeks(period, HISTORY_WEEKS + 1);
  const from = weeks[0]?.start ?? period.start;
  const all: TopicReview[] = reviewsSince(
    db,
    input.apps.map((a) => a.handle),
    from,
  ).map((r) => ({
    handle: r.appHandle,
    id: String(r.id),
    reviewer: r.reviewer,
    content: r.content,
    rating: r.rating,
    at: r.createdAt ?? r.firstSeenAt,
    // As stored (by the poll, an edit or the backfill), as /topics counts them: nothing matched here.
    topics: r.topics.map((t) => t.name),
  }));
  const inPeriod = (r: TopicReview) => r.at >= period.start && r.at < period.end;
  if (!all.some(inPeriod)) return null;
  const history = weeks.slice(0, -1);
  const apps = input.apps.map((app) => {
    const own = all.filter((r) => r.handle === app.handle);
    return topicApp(
      app,
      own.filter(inPeriod),
      history.map((w) => own.filter((r) => r.at >= w.start && r.at < w.end)),
      input.maxRating,
    );
  });
  return { apps, versus: versusOf(apps) };
}

function topicApp(
  app: TopicsInput['apps'][number],
  current: TopicReview[],
  history: TopicReview[][],
  maxRating: number,
): DigestTopicApp {
  const counts = new Map<string, number>();
  for (const r of current) for (const t of new Set(r.topics)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const topics = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_TOPICS)
    .map(([name, reviews]) => {
      const trend = topicTrend(
        { topicReviews: reviews, appReviews: current.length },
        history.map((week) => ({
          topicReviews: week.filter((r) => r.topics.includes(name)).length,
          appReviews: week.length,
        })),
      );
      return { name, reviews, share: trend.share, direction: trend.direction, ratio: trend.ratio };
    });
  const low = (r: TopicReview) => r.rating <= maxRating;
  const phrases = emergingPhrases(
    current.filter(low),
    phraseCounts(
      history
        .flat()
        .filter(low)
        .map((r) => r.content),
    ),
  )
    .slice(0, MAX_PHRASES)
    .map((p) => ({ phrase: p.phrase, reviews: p.reviews, quote: p.quotes[0]?.text ?? '' }));
  const shares = Object.fromEntries([...counts].map(([name, n]) => [name, n / Math.max(current.length, 1)]));
  return {
    handle: app.handle,
    title: app.title,
    role: app.role,
    reviews: current.length,
    topics,
    phrases,
    shares,
  };
}

function versusOf(apps: DigestTopicApp[]): TopicVersus[] {
  if (!apps.some((a) => a.role === 'competitor') || !apps.some((a) => a.role === 'own')) return [];
  const names = [
    ...new Set(apps.filter((a) => a.role === 'own').flatMap((a) => a.topics.map((t) => t.name))),
  ];
  return names.slice(0, MAX_TOPICS).map((topic) => ({
    topic,
    apps: apps.map((a) => ({
      handle: a.handle,
      title: a.title,
      role: a.role,
      share: a.reviews === 0 ? null : (a.shares[topic] ?? 0),
    })),
  }));
}

/**
 * What the inbox shows about a review beyond the stored row: the app's name and role from the config,
 * its severity with the reasons (the same scoring the alerts use, with the configured rules) and the
 * keyword groups it matches, which serve as automatic tags.
 */
import type { Config } from '../config/index.js';
import {
  DEFAULT_SCORING_RULES,
  matchWords,
  mergeScoringRules,
  type ScoreInput,
  type ScoringRules,
  type Severity,
  scoreReview,
} from '../scoring/index.js';
import { configTaxonomy } from '../store/topic-backfill.js';
import { plural } from '../util/plural.js';

export interface AppInfo {
  handle: string;
  name: string;
  role: 'own' | 'competitor' | undefined;
}

export interface Presenter {
  app(handle: string, storedName: string): AppInfo;
  /** Scored from its stored topics when they are current (topics/review-topics.ts), else from its text. */
  severity(review: ScoreInput): Severity;
  /** The labels of the keyword groups the text matches. */
  keywordGroups(content: string): string[];
  /** The names of the config's topics (built-in and `topics:`), for the topic filter. */
  readonly topics: readonly string[];
}

export function presenterOf(config: Config): Presenter {
  const rules: ScoringRules = mergeScoringRules(DEFAULT_SCORING_RULES, config.alerts.scoring, config.topics);
  const apps = new Map(config.apps.map((a) => [a.handle, a]));
  const topics = configTaxonomy(config)
    .topics.map((t) => t.name)
    .sort();
  return {
    topics,
    app(handle, storedName) {
      const configured = apps.get(handle);
      return { handle, name: configured?.name ?? (storedName || handle), role: configured?.role };
    },
    severity(review) {
      return scoreReview(review, rules);
    },
    keywordGroups(content) {
      return Object.values(rules.keywordGroups)
        .filter((group) => group.weight > 0 && matchWords(content, group.words).length > 0)
        .map((group) => group.label);
    },
  };
}

/** "2026-11-23 09:30 UTC": one zone for everyone reading a shared view. */
export function formatTime(date: Date | null | undefined): string {
  if (!date || Number.isNaN(date.getTime())) return '—';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function formatDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * The marketplace's date of a review as a calendar day: the API dates reviews by the day ("2026-11-25T00:00:00
 * +00:00"), so a time of day would be made up. The day as the API wrote it, else the parsed date's UTC day;
 * undefined when neither is a date ("Invalid Date").
 */
export function postedDay(createdDate: string, createdAt: Date | null): string | undefined {
  const written = /^(\d{4}-\d{2}-\d{2})(?:$|T)/.exec(createdDate.trim())?.[1];
  if (written) return written;
  return createdAt && !Number.isNaN(createdAt.getTime()) ? formatDay(createdAt) : undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "3 min ago", "5 hours ago", "2 days ago"; a day after a month: that date. */
export function formatAgo(date: Date, now: Date): string {
  const ms = now.getTime() - date.getTime();
  if (ms < MINUTE) return 'just now';
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min ago`;
  if (ms < DAY) return `${plural(Math.floor(ms / HOUR), 'hour')} ago`;
  if (ms < 31 * DAY) return `${plural(Math.floor(ms / DAY), 'day')} ago`;
  return `on ${formatDay(date)}`;
}

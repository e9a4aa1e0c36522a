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
  type ScoringRules,
  type Severity,
  scoreReview,
} from '../scoring/index.js';

export interface AppInfo {
  handle: string;
  name: string;
  role: 'own' | 'competitor' | undefined;
}

export interface Presenter {
  app(handle: string, storedName: string): AppInfo;
  severity(review: { rating: number; content: string; timeUsingApp: string }): Severity;
  /** The labels of the keyword groups the text matches. */
  keywordGroups(content: string): string[];
}

export function presenterOf(config: Config): Presenter {
  const rules: ScoringRules = mergeScoringRules(DEFAULT_SCORING_RULES, config.alerts.scoring);
  const apps = new Map(config.apps.map((a) => [a.handle, a]));
  return {
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

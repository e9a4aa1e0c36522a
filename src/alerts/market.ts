/**
 * Market alerts into the outbox: each with its dedupe key and one delivery per channel it routes to, in
 * the transaction of the market read that raised it (watch/market-*.ts), like a poll's alerts.
 *
 * Every alert row names an app (the outbox's throttle and the inbox count per app). A rank or listing
 * alert names its app; a category's reshuffle and entrants name the category under CATEGORY_SUBJECT, a
 * handle no app can have (handles hold no `/`), so they never count against an app's throttle.
 */
import type { Config } from '../config/index.js';
import { ensureApp } from '../store/apps.js';
import type { StoreDb } from '../store/db.js';
import { insertAlert, insertDelivery } from '../store/outbox.js';
import { messagesOf, type OutboxMessage } from './messages.js';
import { routeAlert } from './route.js';
import type { MarketAlert, Priority } from './types.js';

/** The alert subject of a category's own alerts (reshuffle, entrants). */
export function categorySubject(category: string): string {
  return `category/${category}`;
}

export interface MarketRaise {
  /** The app the alert is about, or categorySubject(category). */
  subject: string;
  alert: MarketAlert;
  /** Reproduced by a retried read, so the alert is raised once. */
  dedupeKey: string;
  /** Where it may go; each is kept only if it takes the alert's priority (`minPriority`). */
  notify: readonly string[];
}

export interface RaisedMarketAlerts {
  kinds: Array<MarketAlert['kind']>;
  messages: OutboxMessage[];
}

/** Writes the alerts not raised before (by dedupe key) and their deliveries; returns what to enqueue. */
export function raiseMarketAlerts(
  db: StoreDb,
  channels: Config['channels'],
  raises: readonly MarketRaise[],
  at: Date,
): RaisedMarketAlerts {
  const kinds: Array<MarketAlert['kind']> = [];
  const rows: Array<{ id: number; groupKey: null; channel: string; app: string }> = [];
  for (const raise of raises) {
    ensureApp(db, raise.subject);
    const priority: Priority = raise.alert.priority;
    const id = insertAlert(db, {
      appHandle: raise.subject,
      kind: raise.alert.kind,
      dedupeKey: raise.dedupeKey,
      priority,
      score: null,
      reviewRowId: null,
      payload: raise.alert,
      createdAt: at,
      pollRunId: null,
    });
    if (id === undefined) continue;
    kinds.push(raise.alert.kind);
    for (const channel of routeAlert(priority, [...new Set(raise.notify)], channels)) {
      const delivery = insertDelivery(db, {
        alertId: id,
        channel,
        appHandle: raise.subject,
        groupKey: null,
        at,
      });
      rows.push({ id: delivery, groupKey: null, channel, app: raise.subject });
    }
  }
  return { kinds, messages: messagesOf(rows) };
}

/**
 * Where a category's alerts go: its `notify`, or when it names none, the channels of the own apps (the
 * people who care how those rank).
 */
export function categoryChannels(config: Config, category: string): string[] {
  const entry = config.categories.find((c) => c.handle === category);
  if (entry && entry.notify.length > 0) return entry.notify;
  return [...new Set(config.apps.filter((a) => a.role === 'own').flatMap((a) => a.notify))];
}

/** An app's channels (its `notify`). */
export function appChannels(config: Config, handle: string): string[] {
  return config.apps.find((a) => a.handle === handle)?.notify ?? [];
}

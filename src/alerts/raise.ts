import type { FetchedReview, RatingSummary } from '../catalog/index.js';
import type { ChannelConfig } from '../config/index.js';
import { isLowRated, type ScoringRules, scoreReview } from '../scoring/index.js';
import { appTitle, ratingLevel, type StoredRatingLevel, setRatingLevel } from '../store/apps.js';
import type { StoreDb } from '../store/db.js';
import { lowReviewsSince, reviewActivitySince } from '../store/history.js';
import { insertAlert, insertDelivery, latestAlertAt } from '../store/outbox.js';
import type { ReviewRow } from '../store/schema.js';
import { detectIncident, type IncidentRule } from './incident.js';
import { messagesOf, type OutboxMessage } from './messages.js';
import { type DropState, evaluateRating, type StarCounts } from './rating-drop.js';
import { routeAlert } from './route.js';
import type { Alert, AppRef, Priority, ReviewAlert, ReviewRef } from './types.js';

/** Everything from the config that decides which alerts a poll raises and where they go. */
export interface AlertPolicy {
  maxRating: number;
  minDrop: number;
  /** Alert when the displayed (one-decimal) rating falls, too. */
  displayedDrop: boolean;
  /** How far the average must climb back before the same fall alerts again (alerts/rating-drop.ts). */
  dropRecovery: number;
  incident: IncidentRule;
  groupAbove: number;
  scoring: ScoringRules;
  channels: Readonly<Record<string, Pick<ChannelConfig, 'minPriority'>>>;
  apps: ReadonlyMap<string, { name?: string | undefined; notify: readonly string[] }>;
}

export interface PollFindings {
  handle: string;
  pollRunId: number;
  baseline: boolean;
  newReviews: ReviewRow[];
  /** Recorded edits, with what was fetched. */
  edits: Array<{ editId: number; rowId: number; oldRating: number; fetched: FetchedReview }>;
  /** The listing's rating now. Unset when the findings say nothing of it (a reconciliation): no drop then. */
  summary?: RatingSummary;
  /** Found by a reconciliation after the polls missed them: every review alert says "found late". */
  foundLate?: boolean;
  at: Date;
}

/** A group message holds at most this many reviews; more go out as several groups (Slack's limits). */
export const GROUP_SIZE = 20;

export interface RaisedAlerts {
  /** One entry per alert raised (for metrics). */
  kinds: Array<Alert['kind']>;
  /** The outbox messages to enqueue. */
  messages: OutboxMessage[];
}

/**
 * Raises the alerts a poll's findings call for and writes them, with a delivery per routed channel, to
 * the outbox. Runs inside the poll's transaction: the alerts exist exactly when the reviews do.
 */
export function raiseAlerts(db: StoreDb, policy: AlertPolicy, findings: PollFindings): RaisedAlerts {
  const { handle, at } = findings;
  const appConfig = policy.apps.get(handle);
  // Looked up only when something is raised: most polls raise nothing.
  let appCache: AppRef | undefined;
  const app = () => {
    appCache ??= appRef(db, handle, appConfig?.name, findings.newReviews);
    return appCache;
  };
  const raised: Array<{ id: number; alert: Alert; priority: Priority; grouped: boolean }> = [];
  const raise = (
    alert: Alert,
    priority: Priority,
    dedupeKey: string,
    extra: { score?: number; reviewRowId?: number },
  ) => {
    const id = insertAlert(db, {
      appHandle: handle,
      kind: alert.kind,
      dedupeKey,
      priority,
      score: extra.score ?? null,
      reviewRowId: extra.reviewRowId ?? null,
      payload: alert,
      createdAt: at,
      pollRunId: findings.pollRunId,
    });
    if (id !== undefined) raised.push({ id, alert, priority, grouped: alert.kind === 'review' });
  };

  if (!findings.baseline) {
    for (const review of findings.newReviews) {
      if (!isLowRated(review.rating, policy.maxRating) || review.fromBaseline) continue;
      const alert = reviewAlert(app(), refOf(review), policy.scoring, findings.foundLate);
      raise(alert, alert.severity.priority, `review-${review.id}`, {
        score: alert.severity.score,
        reviewRowId: review.id,
      });
    }
    for (const edit of findings.edits) {
      const { fetched } = edit;
      if (fetched.rating >= edit.oldRating || !isLowRated(fetched.rating, policy.maxRating)) continue;
      const alert = reviewAlert(
        app(),
        { ...refOf(fetched), previousRating: edit.oldRating },
        policy.scoring,
        findings.foundLate,
      );
      raise(alert, alert.severity.priority, `edit-${edit.editId}`, {
        score: alert.severity.score,
        reviewRowId: edit.rowId,
      });
    }
    // An incident needs a new low review in this poll: skip the look-back otherwise.
    if (raised.some((a) => a.alert.kind === 'review')) {
      const incident = incidentAlert(db, policy, findings, app());
      if (incident) raise(incident.alert, incident.alert.priority, incident.dedupeKey, {});
    }
  }
  const drop = findings.summary ? ratingDrop(db, policy, findings, findings.summary, app) : undefined;
  if (drop) raise(drop, drop.priority, `drop-${findings.pollRunId}`, {});

  return {
    kinds: raised.map((a) => a.alert.kind),
    messages: writeDeliveries(db, policy, findings, appConfig?.notify ?? [], raised),
  };
}

function writeDeliveries(
  db: StoreDb,
  policy: AlertPolicy,
  findings: PollFindings,
  notify: readonly string[],
  raised: Array<{ id: number; priority: Priority; grouped: boolean }>,
): OutboxMessage[] {
  const rows: Array<{ id: number; groupKey: string | null; channel: string; app: string }> = [];
  for (const channel of notify) {
    const routed = raised.filter((a) => routeAlert(a.priority, [channel], policy.channels).length > 0);
    const reviews = routed.filter((a) => a.grouped);
    const group = reviews.length > policy.groupAbove;
    for (const alert of routed) {
      const index = reviews.indexOf(alert);
      const groupKey =
        group && index >= 0 ? `p${findings.pollRunId}-${channel}-${Math.floor(index / GROUP_SIZE)}` : null;
      const id = insertDelivery(db, {
        alertId: alert.id,
        channel,
        appHandle: findings.handle,
        groupKey,
        at: findings.at,
      });
      rows.push({ id, groupKey, channel, app: findings.handle });
    }
  }
  return messagesOf(rows);
}

function reviewAlert(
  app: AppRef,
  review: ReviewRef,
  rules: ScoringRules,
  foundLate: boolean | undefined,
): ReviewAlert {
  const severity = scoreReview(
    {
      rating: review.rating,
      content: review.content,
      timeUsingApp: review.timeUsingApp,
      ...(review.previousRating === undefined ? {} : { previousRating: review.previousRating }),
    },
    rules,
  );
  return { kind: 'review', app, review, severity, ...(foundLate ? { foundLate: true as const } : {}) };
}

function refOf(
  review: Pick<
    ReviewRow,
    'reviewId' | 'reviewer' | 'location' | 'rating' | 'content' | 'createdDate' | 'timeUsingApp'
  >,
): ReviewRef {
  return {
    reviewId: review.reviewId,
    reviewer: review.reviewer,
    location: review.location,
    rating: review.rating,
    content: review.content,
    createdDate: review.createdDate,
    timeUsingApp: review.timeUsingApp,
  };
}

function appRef(db: StoreDb, handle: string, configName: string | undefined, fresh: ReviewRow[]): AppRef {
  const name = configName ?? fresh[0]?.appName ?? appTitle(db, handle) ?? handle;
  const url = fresh[0]?.appUrl || `https://apps.platform.example/${handle}`;
  return { handle, name: name || handle, url };
}

function incidentAlert(
  db: StoreDb,
  policy: AlertPolicy,
  findings: PollFindings,
  app: AppRef,
): { alert: Alert & { priority: Priority }; dedupeKey: string } | undefined {
  const since = new Date(findings.at.getTime() - policy.incident.windowMs);
  const fresh = new Set(findings.newReviews.map((r) => r.id));
  const low = lowReviewsSince(db, findings.handle, since, policy.maxRating).map((row) => ({
    ...row,
    rowId: row.id,
    isNew: fresh.has(row.id),
  }));
  const found = detectIncident(
    low,
    latestAlertAt(db, findings.handle, 'incident'),
    policy.incident,
    findings.at,
  );
  if (!found) return undefined;
  const oldest = found.reviews.at(-1)?.id ?? 0;
  return {
    alert: {
      kind: 'incident',
      app,
      priority: found.priority,
      // One decimal: a window of 30m reads as 0.5 h, not 0 h.
      windowHours: Math.round(policy.incident.windowMs / 360_000) / 10,
      reviews: found.reviews.map(refOf),
    },
    dedupeKey: `incident-${findings.handle}-${oldest}`,
  };
}

function ratingDrop(
  db: StoreDb,
  policy: AlertPolicy,
  findings: PollFindings,
  summary: RatingSummary,
  app: () => AppRef,
) {
  const stored = ratingLevel(db, findings.handle);
  const result = evaluateRating(
    stored && dropStateOf(stored),
    { average: summary.average, count: summary.count, at: findings.at, stars: starCountsOf(summary) },
    {
      minDrop: policy.minDrop,
      displayed: policy.displayedDrop,
      recovery: policy.dropRecovery,
      maxRating: policy.maxRating,
    },
    // Only a drop needs its evidence: the queries a quiet poll does not pay for.
    (since) => reviewActivitySince(db, findings.handle, since),
  );
  if (result.next) {
    const { level, alerted, displayed } = result.next;
    setRatingLevel(db, findings.handle, {
      ...level,
      stars: level.stars ? [...level.stars] : undefined,
      alerted,
      displayed,
    });
  }
  return result.drop ? ({ kind: 'rating-drop', app: app(), ...result.drop } as const) : undefined;
}

function dropStateOf(stored: StoredRatingLevel): DropState {
  const { alerted, displayed, stars, ...level } = stored;
  const counts = stars as StarCounts | undefined;
  return { level: { ...level, ...(counts ? { stars: counts } : {}) }, alerted, displayed };
}

/** The summary's counts, one-star first, when it gave every one. */
function starCountsOf(summary: RatingSummary): StarCounts | undefined {
  const d = summary.distribution;
  const counts = [d[1], d[2], d[3], d[4], d[5]];
  return counts.every((n): n is number => n !== null) ? (counts as unknown as StarCounts) : undefined;
}

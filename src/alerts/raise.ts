import type { FetchedReview, RatingSummary } from '../catalog/index.js';
import type { ChannelConfig } from '../config/index.js';
import { leadCarriesReviews } from '../kinds.js';
import { isLowRated, type ScoringRules, scoreReview } from '../scoring/index.js';
import { PRIORITIES } from '../scoring/priority.js';
import { appTitle, ratingLevel, type StoredRatingLevel, setRatingLevel } from '../store/apps.js';
import type { StoreDb } from '../store/db.js';
import { countLowReviewsSince, lowReviewsSince, reviewActivitySince } from '../store/history.js';
import { insertAlert, insertDelivery, latestAlertAt } from '../store/outbox.js';
import { WRITTEN_FIELDS } from '../store/review-fields.js';
import type { ReviewRow } from '../store/schema.js';
import { summarizeBurst, topicNamesOf } from '../topics/index.js';
import { pick } from '../util/pick.js';
import { alertedShare, type DropDelivery, dropDelivery, stateAfter } from './drop-delivery.js';
import { detectIncident, type IncidentRule, incidentQuiet } from './incident.js';
import { messagesOf, type OutboxMessage } from './messages.js';
import { type DropState, evaluateRating, type StarCounts } from './rating-drop.js';
import { routeAlert } from './route.js';
import { topicSpikeAlerts } from './topic-spike.js';
import type {
  Alert,
  AppRef,
  IncidentAlert,
  Priority,
  RatingDropAlert,
  ReviewAlert,
  ReviewRef,
} from './types.js';

/** Everything from the config that decides which alerts a poll raises and where they go. */
export interface AlertPolicy {
  maxRating: number;
  minDrop: number;
  /** Alert when the displayed (one-decimal) rating falls, too. */
  displayedDrop: boolean;
  /** How far the average must climb back before the same fall alerts again (alerts/rating-drop.ts). */
  dropRecovery: number;
  /** How long it must stay there (alerts.ratingDrop.recoveryHold). */
  dropRecoveryHoldMs: number;
  /** alerts.ratingDrop.competitors: a competitor's drop goes to the digest, or alerts like an own app's. */
  competitorDrops: 'digest' | 'immediate';
  incident: IncidentRule;
  groupAbove: number;
  scoring: ScoringRules;
  channels: Readonly<Record<string, Pick<ChannelConfig, 'minPriority' | 'type'>>>;
  apps: ReadonlyMap<string, AppPolicy>;
}

export interface AppPolicy {
  name?: string | undefined;
  notify: readonly string[];
  role?: 'own' | 'competitor';
}

export interface PollFindings {
  handle: string;
  pollRunId: number;
  baseline: boolean;
  newReviews: ReviewRow[];
  /** Recorded edits, with what was fetched and the topics the edit stored for it, when at hand. */
  edits: Array<{
    editId: number;
    rowId: number;
    oldRating: number;
    fetched: FetchedReview;
    stored: StoredTopics;
  }>;
  /** The listing's rating now. Unset when the findings say nothing of it (a reconciliation): no drop then. */
  summary?: RatingSummary;
  /** Found by a reconciliation after the polls missed them: every review alert says "found late". */
  foundLate?: boolean;
  at: Date;
}

/** A group message holds at most this many reviews; more go out as several groups (Slack's limits). */
export const GROUP_SIZE = 20;

export interface RaisedAlerts {
  /** One entry per alert written to the outbox, delivered or not (for metrics). */
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
  const pending: Pending[] = findings.baseline ? [] : reviewAlerts(db, policy, findings, app);
  if (findings.summary) {
    const result = ratingDrop(db, policy, findings, findings.summary);
    let next = result.next;
    if (result.drop) {
      const drop: RatingDropAlert = { kind: 'rating-drop', app: app(), ...result.drop };
      const said = sayDrop(policy, findings.pollRunId, appConfig, drop, pending);
      if (said.alert) pending.push(said.alert);
      if (next) next = stateAfter(next, drop, said.how);
    }
    if (next) keepDropState(db, handle, next);
  }

  const raised: Raised[] = [];
  // Every alert written counts (metrics), a drop said as a line or kept for the digest too.
  const written: Array<Alert['kind']> = [];
  for (const { alert, priority, dedupeKey, score, reviewRowId, deliver, carries } of pending) {
    const id = insertAlert(db, {
      appHandle: handle,
      kind: alert.kind,
      dedupeKey,
      priority,
      score: score ?? null,
      reviewRowId: reviewRowId ?? null,
      payload: alert,
      createdAt: at,
      pollRunId: findings.pollRunId,
    });
    if (id === undefined) continue;
    written.push(alert.kind);
    if (deliver) raised.push({ id, alert, priority, reviewRowId, carries });
  }
  return {
    kinds: written,
    messages: writeDeliveries(db, policy, findings, appConfig?.notify ?? [], raised),
  };
}

/** An alert to write; `deliver` false keeps it in the outbox without a message (a drop said elsewhere). */
interface Pending {
  alert: Alert;
  priority: Priority;
  dedupeKey: string;
  score?: number;
  reviewRowId?: number;
  deliver: boolean;
  /**
   * A possible incident's or a topic spike's reviews, by row id: the poll's alerts of them ride in its
   * message (writeDeliveries).
   */
  carries?: readonly number[];
}

interface Raised {
  id: number;
  alert: Alert;
  priority: Priority;
  reviewRowId: number | undefined;
  carries: readonly number[] | undefined;
}

/** The poll's review alerts (new low reviews, re-ratings down) and the incident they may make. */
function reviewAlerts(
  db: StoreDb,
  policy: AlertPolicy,
  findings: PollFindings,
  app: () => AppRef,
): Pending[] {
  const pending: Pending[] = [];
  const add = (alert: ReviewAlert, dedupeKey: string, reviewRowId: number) =>
    pending.push({
      alert,
      priority: alert.severity.priority,
      dedupeKey,
      score: alert.severity.score,
      reviewRowId,
      deliver: true,
    });
  for (const review of findings.newReviews) {
    if (!isLowRated(review.rating, policy.maxRating) || review.fromBaseline) continue;
    add(
      reviewAlert(app(), refOf(review), policy.scoring, findings.foundLate, review),
      `review-${review.id}`,
      review.id,
    );
  }
  for (const edit of findings.edits) {
    const { fetched } = edit;
    if (fetched.rating >= edit.oldRating || !isLowRated(fetched.rating, policy.maxRating)) continue;
    const ref = { ...refOf(fetched), previousRating: edit.oldRating };
    add(
      reviewAlert(app(), ref, policy.scoring, findings.foundLate, edit.stored),
      `edit-${edit.editId}`,
      edit.rowId,
    );
  }
  // An incident or a spike needs a new low review in this poll: skip the look-back otherwise.
  if (pending.length > 0) {
    const incident = incidentAlert(db, policy, findings, app());
    const spikes = spikeAlerts(db, policy, findings, app);
    const told = incident && spikes.find((s) => sameWave(s.rowIds, incident.rowIds));
    if (incident) {
      const { alert, dedupeKey } = incident;
      if (told) {
        told.alert.incident = { count: alert.reviews.length, windowHours: alert.windowHours };
        told.alert.priority =
          PRIORITIES.find((p) => p === alert.priority || p === told.alert.priority) ?? 'high';
      }
      // Kept for the app page and the incident's own quiet window; the spike says it (one wave, one message).
      pending.push({ alert, priority: alert.priority, dedupeKey, deliver: !told, carries: incident.rowIds });
    }
    for (const { alert, dedupeKey, rowIds } of spikes) {
      pending.push({ alert, priority: alert.priority, dedupeKey, deliver: true, carries: rowIds });
    }
  }
  return pending;
}

/** A spike and an incident are one wave when at least half the incident's reviews are the spike's. */
function sameWave(spikeRows: readonly number[], incidentRows: readonly number[]): boolean {
  const spike = new Set(spikeRows);
  return incidentRows.filter((id) => spike.has(id)).length * 2 >= incidentRows.length;
}

/** Each policy's competitors, listed once: a 1,000-app policy is otherwise walked on every low review. */
const COMPETITORS = new WeakMap<AlertPolicy, readonly string[]>();

function competitorsOf(policy: AlertPolicy): readonly string[] {
  let competitors = COMPETITORS.get(policy);
  if (competitors === undefined) {
    competitors = [...policy.apps].filter(([, a]) => a.role === 'competitor').map(([handle]) => handle);
    COMPETITORS.set(policy, competitors);
  }
  return competitors;
}

/** The topic spikes the poll's low reviews complete (alerts/topic-spike.ts). */
function spikeAlerts(db: StoreDb, policy: AlertPolicy, findings: PollFindings, app: () => AppRef) {
  const own = policy.apps.get(findings.handle)?.role !== 'competitor';
  const competitors = own ? competitorsOf(policy) : [];
  // The competitors' names alone: a lookup per watched app would cost a poll of 1,000 apps 1,000 reads.
  const names = new Map(
    competitors.map((handle) => [handle, policy.apps.get(handle)?.name ?? appTitle(db, handle) ?? handle]),
  );
  return topicSpikeAlerts(db, {
    handle: findings.handle,
    app,
    at: findings.at,
    maxRating: policy.maxRating,
    taxonomy: policy.scoring.topics,
    fresh: new Set([...findings.newReviews.map((r) => r.id), ...findings.edits.map((e) => e.rowId)]),
    competitors,
    names,
  });
}

/**
 * Says a drop as dropDelivery decides: as its own message, as a line on the poll's review alerts (which
 * are changed in place), or kept for the digest and the app page only. Returns the drop's own alert.
 */
function sayDrop(
  policy: AlertPolicy,
  pollRunId: number,
  appConfig: AppPolicy | undefined,
  drop: RatingDropAlert,
  pending: Pending[],
): { how: DropDelivery; alert?: Pending } {
  const reviews = pending.filter((p): p is Pending & { alert: ReviewAlert } => p.alert.kind === 'review');
  const notify = appConfig?.notify ?? [];
  const dropChannels = routeAlert(drop.priority, notify, policy.channels);
  const reviewChannels = new Set(reviews.flatMap((r) => routeAlert(r.priority, notify, policy.channels)));
  const thisPoll = alertedShare(drop.to, drop.from.average - drop.to.average, {
    added: reviews
      .filter((r) => r.alert.review.previousRating === undefined)
      .map((r) => r.alert.review.rating),
    rerated: reviews.flatMap(({ alert: { review } }) =>
      review.previousRating === undefined ? [] : [{ from: review.previousRating, to: review.rating }],
    ),
  });
  const how = dropDelivery(drop, {
    explainedShare: Math.max(thisPoll, drop.explanation.lowReviewsShare),
    reviewsReachItsChannels: reviews.length > 0 && dropChannels.every((c) => reviewChannels.has(c)),
    competitor: appConfig?.role === 'competitor',
    competitorsImmediate: policy.competitorDrops === 'immediate',
  });
  if (how.fold) {
    for (const r of reviews) r.alert.rating = { now: drop.to.average, was: drop.from.average };
  }
  if (!how.record) return { how };
  const alert: RatingDropAlert = how.saidIn ? { ...drop, saidIn: how.saidIn } : drop;
  return {
    how,
    alert: { alert, priority: drop.priority, dedupeKey: `drop-${pollRunId}`, deliver: how.message },
  };
}

/**
 * A delivery per routed channel, with the group key that makes its message: on a channel people read,
 * the review alerts of a possible incident or a topic spike raised by the same poll ride in its message
 * (one message saying both, not the reviews and then the incident or the spike quoting them again), with
 * the incident when both list one; the rest of the poll's review alerts go out as one group when there
 * are more than `groupAbove`, else each alone.
 */
function writeDeliveries(
  db: StoreDb,
  policy: AlertPolicy,
  findings: PollFindings,
  notify: readonly string[],
  raised: Raised[],
): OutboxMessage[] {
  const rows: Array<{ id: number; groupKey: string | null; channel: string; app: string }> = [];
  // The incident first: a review it lists rides with it rather than with a spike.
  const leads = raised
    .filter((a) => a.carries !== undefined)
    .sort((a, b) => Number(b.alert.kind === 'incident') - Number(a.alert.kind === 'incident'));
  for (const channel of notify) {
    const routed = raised.filter((a) => routeAlert(a.priority, [channel], policy.channels).length > 0);
    const type = policy.channels[channel]?.type;
    const leading =
      type !== undefined && leadCarriesReviews(type) ? leads.filter((l) => routed.includes(l)) : [];
    const leadOf = (a: Raised) => {
      const row = a.alert.kind === 'review' ? a.reviewRowId : undefined;
      return row === undefined ? undefined : leading.find((l) => l.carries?.includes(row));
    };
    const reviews = routed.filter((a) => a.alert.kind === 'review' && leadOf(a) === undefined);
    const group = reviews.length > policy.groupAbove;
    for (const alert of routed) {
      const index = reviews.indexOf(alert);
      const lead = leading.includes(alert) ? alert : leadOf(alert);
      const groupKey =
        lead !== undefined
          ? `p${findings.pollRunId}-${channel}-lead-${lead.id}`
          : group && index >= 0
            ? `p${findings.pollRunId}-${channel}-${Math.floor(index / GROUP_SIZE)}`
            : null;
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

/** A review's topics as stored with it, and the taxonomy version that computed them. */
type StoredTopics = Pick<ReviewRow, 'topics' | 'topicsVersion'>;

/**
 * A review alert. `stored`: the topics the poll just stored for it, which the score and the alert's topic
 * names read instead of matching the text again (topics/review-topics.ts); without them, it matches.
 */
function reviewAlert(
  app: AppRef,
  review: ReviewRef,
  rules: ScoringRules,
  foundLate: boolean | undefined,
  stored?: StoredTopics,
): ReviewAlert {
  // Picked rather than spread: a new review passes its whole row.
  const topics = { topics: stored?.topics, topicsVersion: stored?.topicsVersion };
  const severity = scoreReview(
    {
      rating: review.rating,
      content: review.content,
      timeUsingApp: review.timeUsingApp,
      ...(review.previousRating === undefined ? {} : { previousRating: review.previousRating }),
      ...topics,
    },
    rules,
  );
  return {
    kind: 'review',
    app,
    review,
    severity,
    topics: topicNamesOf({ content: review.content, ...topics }, rules.topics),
    ...(foundLate ? { foundLate: true as const } : {}),
  };
}

/** What an alert quotes of a review (ReviewRef): its id, what the reviewer wrote, their time on the app. */
const REF_FIELDS = ['reviewId', ...WRITTEN_FIELDS, 'timeUsingApp'] as const;

function refOf(review: Pick<ReviewRow, (typeof REF_FIELDS)[number]>): ReviewRef {
  return pick(review, REF_FIELDS);
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
): { alert: IncidentAlert; dedupeKey: string; rowIds: number[] } | undefined {
  const since = new Date(findings.at.getTime() - policy.incident.windowMs);
  const lastIncidentAt = latestAlertAt(db, findings.handle, 'incident');
  // Most polls with a low review make no incident: the two rules that say so without reading a review (an
  // incident within the window, too few low reviews, counted by id) spare the look-back its rows and their
  // topics' JSON. detectIncident applies both again, with the rest.
  if (incidentQuiet(lastIncidentAt, policy.incident, findings.at)) return undefined;
  const { count } = policy.incident;
  if (countLowReviewsSince(db, findings.handle, since, policy.maxRating, count) < count) return undefined;
  const fresh = new Set(findings.newReviews.map((r) => r.id));
  const low = lowReviewsSince(db, findings.handle, since, policy.maxRating).map((row) => ({
    ...row,
    rowId: row.id,
    isNew: fresh.has(row.id),
  }));
  const found = detectIncident(low, lastIncidentAt, policy.incident, findings.at);
  if (!found) return undefined;
  const oldest = found.reviews.at(-1)?.id ?? 0;
  const about = summarizeBurst(
    found.reviews.map((r) => ({ content: r.content, topics: topicNamesOf(r, policy.scoring.topics) })),
  ).text;
  return {
    alert: {
      kind: 'incident',
      app,
      priority: found.priority,
      // One decimal: a window of 30m reads as 0.5 h, not 0 h.
      windowHours: Math.round(policy.incident.windowMs / 360_000) / 10,
      reviews: found.reviews.map(refOf),
      ...(about === undefined ? {} : { about }),
    },
    dedupeKey: `incident-${findings.handle}-${oldest}`,
    rowIds: found.reviews.map((r) => r.rowId),
  };
}

/** What the drop rules make of the poll's rating; the state is written once the drop was said. */
function ratingDrop(db: StoreDb, policy: AlertPolicy, findings: PollFindings, summary: RatingSummary) {
  const stored = ratingLevel(db, findings.handle);
  return evaluateRating(
    stored && dropStateOf(stored),
    { average: summary.average, count: summary.count, at: findings.at, stars: starCountsOf(summary) },
    {
      minDrop: policy.minDrop,
      displayed: policy.displayedDrop,
      recovery: policy.dropRecovery,
      recoveryHoldMs: policy.dropRecoveryHoldMs,
      maxRating: policy.maxRating,
    },
    // Only a drop needs its evidence: the queries a quiet poll does not pay for.
    (since) => reviewActivitySince(db, findings.handle, since),
  );
}

function keepDropState(db: StoreDb, handle: string, next: DropState): void {
  const { level, alerted, displayed, recoveringSince } = next;
  setRatingLevel(db, handle, {
    ...level,
    stars: level.stars ? [...level.stars] : undefined,
    alerted,
    displayed,
    recoveringSince,
  });
}

function dropStateOf(stored: StoredRatingLevel): DropState {
  const { alerted, displayed, stars, recoveringSince, ...level } = stored;
  const counts = stars as StarCounts | undefined;
  return { level: { ...level, ...(counts ? { stars: counts } : {}) }, alerted, displayed, recoveringSince };
}

/** The summary's counts, one-star first, when it gave every one. */
function starCountsOf(summary: RatingSummary): StarCounts | undefined {
  const d = summary.distribution;
  const counts = [d[1], d[2], d[3], d[4], d[5]];
  return counts.every((n): n is number => n !== null) ? (counts as unknown as StarCounts) : undefined;
}

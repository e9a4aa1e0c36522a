import { sameReview } from '../alerts/incident.js';
import { GROUP_SIZE } from '../alerts/raise.js';
import type { Alert, Notification, ReviewAlert, ReviewRef } from '../alerts/types.js';
import { errorMessage } from '../errors.js';
import { leadCarriesReviews } from '../kinds.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import {
  type DeliveryWithAlert,
  deliveriesWithAlerts,
  deliveryIdsOfGroup,
  firstHeldAt,
  heldDeliveryIds,
  hold,
  markAttemptFailed,
  markSent,
  setGroupKey,
} from '../store/outbox.js';
import { retryAfterCapNote } from '../util/http.js';
import { DeliveryError } from './errors.js';
import type { ChannelSender } from './sender.js';
import { holdWait, type Throttle, throttleWait } from './throttle.js';

export interface DeliverDeps {
  store: Store;
  senders: ReadonlyMap<string, ChannelSender>;
  throttle: Throttle;
  logger: Logger;
  now: () => Date;
  /** Counts deliveries by channel and outcome. */
  count?: (channel: string, outcome: 'sent' | 'failed' | 'held' | 'retried', deliveries: number) => void;
}

/** One message to deliver: these deliveries, or (a flush) whatever the throttle holds for a pair. */
export type DeliveryRequest =
  | { deliveryIds: number[]; flush?: undefined }
  | { flush: { channel: string; app: string; id: string } };

/** Where a delivery attempt stands: its number, whether it is the last, and how often it started. */
export interface Attempt {
  number: number;
  last: boolean;
  /** Starts of any kind, waits included: a channel that answers 429 forever must end somewhere. */
  started: number;
}

/** A channel's Retry-After is honoured this many times for one message; then it is failed for good. */
export const MAX_CHANNEL_WAITS = 50;

/** What came of one attempt; the queue adapter turns each into what BullMQ expects. */
export type DeliverOutcome =
  /** Nothing left to send: already sent by an earlier run, or nothing held. */
  | { status: 'skipped' }
  | { status: 'sent'; channel: string; app: string; deliveries: number }
  /**
   * The throttle held these back: one flush message for the pair must run after `waitMs` (when the window
   * frees, or sooner when the first held alert would otherwise wait past maxHold).
   */
  | { status: 'held'; channel: string; app: string; deliveries: number; waitMs: number }
  /**
   * A flush that may not go yet (the window is full and maxHold not reached), or a channel that asked to
   * wait: try the same message after `waitMs`.
   */
  | { status: 'wait'; waitMs: number }
  /** It failed; `final` when it will not be tried again (permanent, or the last attempt). */
  | { status: 'failed'; final: boolean; error: string };

/**
 * Delivers one message. SQLite is the truth: deliveries already sent are skipped, so a message that runs
 * twice (a crash, a flushed Redis, a sweep) sends once. The one window left: a crash after the channel
 * accepted a message and before it was marked sent (docs/architecture.md).
 */
export async function deliver(
  deps: DeliverDeps,
  request: DeliveryRequest,
  attempt: Attempt,
): Promise<DeliverOutcome> {
  const { store, logger } = deps;
  const flush = request.flush;
  const flushKey = flush && `flush-${flush.id}`;
  // A flush that was sent once (and failed) sends exactly what it sent then, so its message ids stay the
  // same; alerts held since go in a later flush. Only a flush never sent takes in all that is held.
  const tried = flushKey ? deliveryIdsOfGroup(store.db, flushKey) : [];
  const ids = flush
    ? tried.length > 0
      ? tried
      : heldDeliveryIds(store.db, flush.channel, flush.app)
    : request.deliveryIds;
  const deliveries = deliveriesWithAlerts<Alert>(store.db, ids).filter(
    (d) => d.status === 'pending' || (flush !== undefined && d.status === 'held'),
  );
  const first = deliveries[0];
  if (!first) return { status: 'skipped' };
  const { channel, appHandle: app } = first;
  const pendingIds = deliveries.map((d) => d.id);

  const sender = deps.senders.get(channel);
  if (!sender) {
    const error = `channel "${channel}" is no longer in the config`;
    deps.count?.(channel, 'failed', pendingIds.length);
    markAttemptFailed(store.db, pendingIds, error, true);
    return { status: 'failed', final: true, error };
  }

  const now = deps.now();
  const windowWait = throttleWait(store.db, deps.throttle, channel, app, now);
  if (windowWait !== undefined && !flush) {
    hold(store.db, pendingIds, now);
    // The flush is due when the window frees or the longest-held alert reaches maxHold, whichever is first.
    const wait = holdWait(deps.throttle, windowWait, firstHeldAt(store.db, channel, app), now);
    deps.count?.(channel, 'held', pendingIds.length);
    logger.info(
      { channel, app, held: pendingIds.length, inMs: wait },
      `throttled: ${pendingIds.length} alert(s) of ${app} wait for the next grouped message on "${channel}"`,
    );
    return { status: 'held', channel, app, deliveries: pendingIds.length, waitMs: wait };
  }
  if (windowWait !== undefined) {
    const wait = holdWait(deps.throttle, windowWait, firstHeldAt(store.db, channel, app), now);
    if (wait > 0) return { status: 'wait', waitMs: wait };
    logger.info(
      { channel, app, held: deliveries.length, maxHoldMs: deps.throttle.maxHoldMs },
      `${deliveries.length} alert(s) of ${app} held for alerts.throttle.maxHold: sending them to "${channel}" though the throttle window is full`,
    );
  }

  // A flush is one message to the throttle, however many held alerts it carries; the key, written just
  // before the first send, also fixes what its retries carry.
  if (flushKey) setGroupKey(store.db, pendingIds, flushKey);
  const sentIds = new Set<number>();
  try {
    for (const chunk of notificationsOf(deliveries, leadCarriesReviews(sender.type))) {
      await sender.send(chunk.notification, {
        deliveryIds: chunk.ids,
        createdAt: firstCreated(deliveries, chunk.ids),
      });
      markSent(store.db, chunk.ids, deps.now());
      for (const id of chunk.ids) sentIds.add(id);
    }
  } catch (err) {
    deps.count?.(channel, 'sent', sentIds.size);
    // Only what did not go out: a message sent before the failing one stays sent.
    const unsent = deliveries.filter((d) => !sentIds.has(d.id)).map((d) => d.id);
    return failed(deps, channel, unsent, err, attempt);
  }
  deps.count?.(channel, 'sent', sentIds.size);
  logger.info(
    { channel, app, deliveries: deliveries.length },
    `delivered ${deliveries.length} alert(s) of ${app} to "${channel}"`,
  );
  return { status: 'sent', channel, app, deliveries: deliveries.length };
}

function failed(
  deps: DeliverDeps,
  channel: string,
  ids: number[],
  err: unknown,
  attempt: Attempt,
): DeliverOutcome {
  const message = errorMessage(err);
  if (err instanceof DeliveryError && err.retryAfterMs !== undefined && attempt.started < MAX_CHANNEL_WAITS) {
    deps.logger.warn(
      { channel, waitMs: err.retryAfterMs },
      `${message}: waiting as the channel asked${retryAfterCapNote(err.retryAfterMs)}`,
    );
    deps.count?.(channel, 'retried', ids.length);
    return { status: 'wait', waitMs: err.retryAfterMs };
  }
  // Past MAX_CHANNEL_WAITS, a channel still asking to wait is failed for good (`notify retry` resends).
  const stillLimited = err instanceof DeliveryError && err.retryAfterMs !== undefined;
  const permanent = err instanceof DeliveryError && (err.permanent || stillLimited);
  const final = permanent || attempt.last;
  const reason = stillLimited
    ? `${message} (still asked to wait after ${attempt.started} tries)`
    : attempt.last && !permanent
      ? `${message} (gave up after ${attempt.number} attempts)`
      : message;
  markAttemptFailed(deps.store.db, ids, reason, final);
  deps.count?.(channel, final ? 'failed' : 'retried', ids.length);
  if (final) {
    deps.logger.error(
      { deliveries: ids.length },
      `delivery failed for good: ${message}; \`reviewwatch notify retry\` sends it again`,
    );
  } else {
    deps.logger.warn({ attempt: attempt.number }, `delivery failed, will retry: ${message}`);
  }
  return { status: 'failed', final, error: message };
}

/** When the earliest of these deliveries was written: when what the message reports was found. */
function firstCreated(deliveries: ReadonlyArray<DeliveryWithAlert<Alert>>, ids: readonly number[]): Date {
  const times = deliveries.filter((d) => ids.includes(d.id)).map((d) => d.createdAt.getTime());
  return new Date(Math.min(...times));
}

/**
 * The messages of a batch of deliveries to one channel. With `leadCarries` (a channel people read:
 * src/kinds.ts), a possible incident or a topic spike carries the review alerts of the batch that it lists
 * and that share its group key: its poll's (alerts/raise.ts, writeDeliveries), or a throttle's flush. The
 * other review alerts go as one group, or alone; other kinds each on their own.
 */
export function notificationsOf(
  deliveries: Array<DeliveryWithAlert<Alert>>,
  leadCarries: boolean,
): Array<{ notification: Notification; ids: number[] }> {
  const out: Array<{ notification: Notification; ids: number[] }> = [];
  const reviews = deliveries.filter((d): d is DeliveryWithAlert<ReviewAlert> => d.alert.kind === 'review');
  const carried = new Set<number>();
  for (const d of deliveries) {
    const lead = d.alert;
    if (!leadCarries || d.groupKey === null || (lead.kind !== 'incident' && lead.kind !== 'topic-spike'))
      continue;
    const lists = (review: ReviewRef) =>
      lead.kind === 'incident'
        ? lead.reviews.some((listed) => sameReview(listed, review))
        : (lead.reviewIds?.includes(review.reviewId) ?? false);
    const riding = reviews.filter(
      (r) => r.groupKey === d.groupKey && !carried.has(r.id) && lists(r.alert.review),
    );
    // More than a group holds go as groups beside the lead: a rider left out would read "found earlier".
    if (riding.length === 0 || riding.length > GROUP_SIZE) continue;
    for (const r of [d, ...riding]) carried.add(r.id);
    const alerts = riding.map((r) => r.alert);
    out.push({
      notification:
        lead.kind === 'incident'
          ? { kind: 'group', app: lead.app, alerts, incident: lead }
          : { kind: 'group', app: lead.app, alerts, spike: lead },
      ids: [d.id, ...riding.map((r) => r.id)],
    });
  }
  const alone = reviews.filter((d) => !carried.has(d.id));
  // A group never holds more than GROUP_SIZE reviews: more would not fit Slack's limits, and a review
  // left out of a message must not be marked sent with it.
  for (let i = 0; i < alone.length; i += GROUP_SIZE) {
    const chunk = alone.slice(i, i + GROUP_SIZE);
    const [single] = chunk;
    if (chunk.length === 1 && single) {
      out.push({ notification: { kind: 'single', alert: single.alert }, ids: [single.id] });
    } else if (single) {
      out.push({
        notification: { kind: 'group', app: single.alert.app, alerts: chunk.map((d) => d.alert) },
        ids: chunk.map((d) => d.id),
      });
    }
  }
  for (const d of deliveries) {
    if (d.alert.kind !== 'review' && !carried.has(d.id))
      out.push({ notification: { kind: 'single', alert: d.alert }, ids: [d.id] });
  }
  return out;
}

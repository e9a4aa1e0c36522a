import { and, count, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Db, StoreDb } from './db.js';
import { type AlertRow, alerts, type DeliveryRow, deliveries } from './schema.js';
import { statements } from './statements.js';

/** `payload` is the alert as JSON; what it holds is the alerts' business (alerts/types.ts), not the store's. */
export type NewAlert = Omit<typeof alerts.$inferInsert, 'id' | 'payload'> & { payload: unknown };

/** A delivery as the outbox holds it: enough to decide which message it goes out in (alerts/messages.ts). */
export interface DeliveryRef {
  id: number;
  groupKey: string | null;
  channel: string;
  app: string;
  status?: string;
}

/** An alert read back as it was raised: what it is, how urgent, when, and the payload it went out with. */
export const RAISED_ALERT = {
  id: alerts.id,
  kind: alerts.kind,
  priority: alerts.priority,
  createdAt: alerts.createdAt,
  payload: alerts.payload,
};

/** Returns the new alert's id, or undefined when an alert with the same dedupe key exists. */
export function insertAlert(db: StoreDb, alert: NewAlert): number | undefined {
  return statements(db).insertAlert.get({
    ...alert,
    score: alert.score ?? null,
    reviewRowId: alert.reviewRowId ?? null,
    pollRunId: alert.pollRunId ?? null,
  })?.id;
}

export function insertDelivery(
  db: StoreDb,
  delivery: { alertId: number; channel: string; appHandle: string; groupKey: string | null; at: Date },
): number {
  const row = statements(db).insertDelivery.get({ ...delivery, createdAt: delivery.at });
  if (!row) throw new Error('inserting a delivery returned nothing');
  return row.id;
}

export interface DeliveryWithAlert<A = unknown> extends DeliveryRow {
  /** The stored payload; the caller names its type (the store only keeps the JSON). */
  alert: A;
  priority: AlertRow['priority'];
}

export function deliveriesWithAlerts<A = unknown>(db: Db, ids: number[]): Array<DeliveryWithAlert<A>> {
  if (ids.length === 0) return [];
  return db
    .select({ delivery: deliveries, payload: alerts.payload, priority: alerts.priority })
    .from(deliveries)
    .innerJoin(alerts, eq(alerts.id, deliveries.alertId))
    .where(inArray(deliveries.id, ids))
    .orderBy(deliveries.id)
    .all()
    .map((row) => ({ ...row.delivery, alert: row.payload as A, priority: row.priority }));
}

export function markSent(db: Db, ids: number[], at: Date): void {
  if (ids.length === 0) return;
  db.update(deliveries)
    .set({ status: 'sent', sentAt: at, attempts: sql`${deliveries.attempts} + 1`, lastError: null })
    .where(inArray(deliveries.id, ids))
    .run();
}

export function markAttemptFailed(db: Db, ids: number[], reason: string, permanent: boolean): void {
  if (ids.length === 0) return;
  db.update(deliveries)
    .set({
      attempts: sql`${deliveries.attempts} + 1`,
      lastError: reason,
      ...(permanent ? { status: 'failed' as const } : {}),
    })
    .where(inArray(deliveries.id, ids))
    .run();
}

export function setGroupKey(db: Db, ids: number[], groupKey: string): void {
  if (ids.length === 0) return;
  db.update(deliveries).set({ groupKey }).where(inArray(deliveries.id, ids)).run();
}

export function hold(db: Db, ids: number[], at: Date): void {
  if (ids.length === 0) return;
  db.update(deliveries).set({ status: 'held', heldAt: at }).where(inArray(deliveries.id, ids)).run();
}

/** Deliveries the throttle holds for this app on this channel. */
function heldFor(channel: string, appHandle: string) {
  return and(
    eq(deliveries.channel, channel),
    eq(deliveries.appHandle, appHandle),
    eq(deliveries.status, 'held'),
  );
}

/** When the longest-held of the deliveries the throttle holds for this app on this channel was held. */
export function firstHeldAt(db: Db, channel: string, appHandle: string): Date | undefined {
  const row = db
    .select({ at: sql<number | null>`min(${deliveries.heldAt})` })
    .from(deliveries)
    .where(heldFor(channel, appHandle))
    .get();
  return row?.at == null ? undefined : new Date(row.at);
}

/** Deliveries sent to this channel about this app since `since`: what the throttle counts. */
function sentSince(channel: string, appHandle: string, since: Date) {
  return and(
    eq(deliveries.channel, channel),
    eq(deliveries.appHandle, appHandle),
    eq(deliveries.status, 'sent'),
    gte(deliveries.sentAt, since),
  );
}

/** Messages (a delivery, or a group of them) sent to this channel about this app since `since`. */
export function messagesSentSince(db: Db, channel: string, appHandle: string, since: Date): number {
  const row = db
    .select({ n: sql<number>`count(distinct coalesce(${deliveries.groupKey}, ${deliveries.id}))` })
    .from(deliveries)
    .where(sentSince(channel, appHandle, since))
    .get();
  return row?.n ?? 0;
}

/** When the oldest message that still counts against the throttle window was sent. */
export function oldestSentSince(db: Db, channel: string, appHandle: string, since: Date): Date | undefined {
  const row = db
    .select({ at: sql<number | null>`min(${deliveries.sentAt})` })
    .from(deliveries)
    .where(sentSince(channel, appHandle, since))
    .get();
  return row?.at == null ? undefined : new Date(row.at);
}

export function heldDeliveryIds(db: Db, channel: string, appHandle: string): number[] {
  return db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(heldFor(channel, appHandle))
    .orderBy(deliveries.id)
    .all()
    .map((row) => row.id);
}

/** The deliveries a flush carries, by the group key its first attempt wrote: what its retries send. */
export function deliveryIdsOfGroup(db: Db, groupKey: string): number[] {
  return db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(eq(deliveries.groupKey, groupKey))
    .orderBy(deliveries.id)
    .all()
    .map((row) => row.id);
}

/** Everything not yet delivered (pending or held by a throttle): what a start or the sweep re-enqueues. */
export function undeliveredDeliveries(db: Db): DeliveryRef[] {
  return db
    .select({
      id: deliveries.id,
      groupKey: deliveries.groupKey,
      channel: deliveries.channel,
      app: deliveries.appHandle,
      status: deliveries.status,
    })
    .from(deliveries)
    .where(inArray(deliveries.status, ['pending', 'held']))
    .orderBy(deliveries.id)
    .all();
}

export function failedDeliveries<A = unknown>(db: Db): Array<DeliveryWithAlert<A>> {
  const ids = db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(eq(deliveries.status, 'failed'))
    .all()
    .map((r) => r.id);
  return deliveriesWithAlerts<A>(db, ids);
}

/** Puts failed deliveries back to pending (all, or one channel's) and returns them. */
export function retryFailed(db: Db, channel?: string): DeliveryRef[] {
  const where = channel
    ? and(eq(deliveries.status, 'failed'), eq(deliveries.channel, channel))
    : eq(deliveries.status, 'failed');
  return db
    .update(deliveries)
    .set({ status: 'pending', lastError: null })
    .where(where)
    .returning({
      id: deliveries.id,
      groupKey: deliveries.groupKey,
      channel: deliveries.channel,
      app: deliveries.appHandle,
    })
    .all();
}

export interface OutboxCounts {
  channel: string;
  pending: number;
  held: number;
  sent: number;
  failed: number;
  /** Of the pending, those an attempt already failed to send: the channel is down or refusing. */
  retrying: number;
  /** The error of the newest of them, as the log gave it (no URL); null when none is retrying. */
  lastError: string | null;
}

export function outboxCounts(db: Db): OutboxCounts[] {
  // One statement, one snapshot: the retried count and the newest one's error agree with the pending count.
  const rows = db
    .select({
      channel: deliveries.channel,
      status: deliveries.status,
      n: count(),
      retrying: sql<number>`sum(${deliveries.lastError} is not null)`,
      lastError: sql<string | null>`(select d.last_error from deliveries d
        where d.channel = ${deliveries.channel} and d.status = ${deliveries.status} and d.last_error is not null
        order by d.id desc limit 1)`,
    })
    .from(deliveries)
    .groupBy(deliveries.channel, deliveries.status)
    .all();
  const byChannel = new Map<string, OutboxCounts>();
  for (const row of rows) {
    const entry = byChannel.get(row.channel) ?? {
      channel: row.channel,
      pending: 0,
      held: 0,
      sent: 0,
      failed: 0,
      retrying: 0,
      lastError: null,
    };
    entry[row.status] = row.n;
    if (row.status === 'pending' && row.retrying > 0) {
      entry.retrying = row.retrying;
      entry.lastError = row.lastError;
    }
    byChannel.set(row.channel, entry);
  }
  return [...byChannel.values()].sort((a, b) => a.channel.localeCompare(b.channel));
}

export function latestAlertAt(db: StoreDb, appHandle: string, kind: AlertRow['kind']): Date | undefined {
  return statements(db).latestAlertAt.get({ handle: appHandle, kind })?.at ?? undefined;
}

export type DeliveryState = Pick<DeliveryRow, 'id' | 'status' | 'channel' | 'appHandle' | 'lastError'>;

export function deliveryStates(db: Db, ids: number[]): DeliveryState[] {
  if (ids.length === 0) return [];
  return db
    .select({
      id: deliveries.id,
      status: deliveries.status,
      channel: deliveries.channel,
      appHandle: deliveries.appHandle,
      lastError: deliveries.lastError,
    })
    .from(deliveries)
    .where(inArray(deliveries.id, ids))
    .all();
}

/**
 * The deliveries of the alerts raised for these apps since a moment, whichever process raised them: what
 * a one-shot run waits for and reports.
 */
export function deliveriesRaisedSince(db: Db, handles: string[], since: Date): number[] {
  if (handles.length === 0) return [];
  return db
    .select({ id: deliveries.id })
    .from(deliveries)
    .innerJoin(alerts, eq(alerts.id, deliveries.alertId))
    .where(and(inArray(alerts.appHandle, handles), gte(alerts.createdAt, since)))
    .all()
    .map((row) => row.id);
}

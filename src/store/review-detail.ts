/**
 * Everything the store knows about one review, for its page in the inbox: the review, its triage with
 * notes and audit trail, its edits, and the alerts it raised with where each was delivered.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from './db.js';
import {
  type AlertRow,
  alerts,
  type DeliveryRow,
  deliveries,
  type ReviewEditRow,
  type ReviewNoteRow,
  type ReviewRow,
  reviewEdits,
  reviews,
  type TriageEventRow,
} from './schema.js';
import { auditOf, notesOf, type TriageState, triageOf } from './triage.js';

export interface AlertWithDeliveries {
  alert: Omit<AlertRow, 'payload'>;
  deliveries: DeliveryRow[];
}

export interface ReviewDetail {
  review: ReviewRow;
  triage: TriageState;
  notes: ReviewNoteRow[];
  audit: TriageEventRow[];
  /** Oldest first. */
  edits: ReviewEditRow[];
  /** Oldest first; the payload stays out (the prune empties it, and the review says it all). */
  alerts: AlertWithDeliveries[];
}

export function reviewExists(db: Db, reviewRowId: number): boolean {
  return db.select({ id: reviews.id }).from(reviews).where(eq(reviews.id, reviewRowId)).get() !== undefined;
}

/** The row of an app's review by the marketplace's review id (what alerts link by); undefined if none. */
export function reviewRowIdOf(db: Db, handle: string, reviewId: string): number | undefined {
  if (reviewId === '') return undefined;
  return db
    .select({ id: reviews.id })
    .from(reviews)
    .where(and(eq(reviews.appHandle, handle), eq(reviews.identity, reviewId)))
    .get()?.id;
}

export function reviewDetail(db: Db, reviewRowId: number): ReviewDetail | undefined {
  const review = db.select().from(reviews).where(eq(reviews.id, reviewRowId)).get();
  if (!review) return undefined;
  const alertRows = db
    .select({
      id: alerts.id,
      appHandle: alerts.appHandle,
      kind: alerts.kind,
      dedupeKey: alerts.dedupeKey,
      priority: alerts.priority,
      score: alerts.score,
      reviewRowId: alerts.reviewRowId,
      createdAt: alerts.createdAt,
      pollRunId: alerts.pollRunId,
    })
    .from(alerts)
    .where(eq(alerts.reviewRowId, reviewRowId))
    .orderBy(asc(alerts.id))
    .all();
  const deliveryRows =
    alertRows.length === 0
      ? []
      : db
          .select()
          .from(deliveries)
          .where(
            inArray(
              deliveries.alertId,
              alertRows.map((a) => a.id),
            ),
          )
          .orderBy(asc(deliveries.id))
          .all();
  return {
    review,
    triage: triageOf(db, reviewRowId),
    notes: notesOf(db, reviewRowId),
    audit: auditOf(db, reviewRowId),
    edits: db
      .select()
      .from(reviewEdits)
      .where(eq(reviewEdits.reviewRowId, reviewRowId))
      .orderBy(asc(reviewEdits.id))
      .all(),
    alerts: alertRows.map((alert) => ({
      alert,
      deliveries: deliveryRows.filter((d) => d.alertId === alert.id),
    })),
  };
}

/**
 * The JSON shapes of the API (`/api/reviews`, `/api/reviews/:id`), documented in docs/inbox.md: dates as ISO
 * strings, the same severity and automatic tags the pages show, and each review's URL in the inbox.
 */
import type { InboxRow } from '../store/inbox.js';
import type { ReviewDetail } from '../store/review-detail.js';
import type { TriageEventRow } from '../store/schema.js';
import type { TriageState } from '../store/triage.js';
import type { Presenter } from './present.js';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

export function reviewUrl(id: number, publicUrl: string | undefined): string {
  return publicUrl ? new URL(`/reviews/${id}`, publicUrl).href : `/reviews/${id}`;
}

export function rowJson(row: InboxRow, presenter: Presenter, publicUrl: string | undefined) {
  const severity = presenter.severity(row);
  return {
    id: row.id,
    url: reviewUrl(row.id, publicUrl),
    app: presenter.app(row.appHandle, row.appName),
    reviewer: row.reviewer,
    location: row.location,
    rating: row.rating,
    content: row.content,
    createdDate: row.createdDate,
    date: iso(row.at),
    firstSeenAt: iso(row.firstSeenAt),
    timeUsingApp: row.timeUsingApp,
    removedAt: iso(row.removedAt),
    priority: row.priority,
    severity: { score: severity.score, reasons: severity.reasons },
    keywordGroups: presenter.keywordGroups(row.content),
    status: row.status,
    assignee: row.assignee,
    tags: row.tags,
  };
}

export function triageJson(triage: TriageState) {
  return { ...triage, updatedAt: iso(triage.updatedAt) };
}

export function eventJson(event: TriageEventRow) {
  return {
    id: event.id,
    actor: event.actor,
    at: iso(event.at),
    field: event.field,
    from: event.oldValue,
    to: event.newValue,
    ...(event.reason ? { reason: event.reason } : {}),
  };
}

export function detailJson(detail: ReviewDetail, presenter: Presenter, publicUrl: string | undefined) {
  const { review } = detail;
  const severity = presenter.severity(review);
  return {
    id: review.id,
    url: reviewUrl(review.id, publicUrl),
    app: presenter.app(review.appHandle, review.appName),
    reviewId: review.reviewId,
    reviewer: review.reviewer,
    location: review.location,
    rating: review.rating,
    content: review.content,
    createdDate: review.createdDate,
    date: iso(review.createdAt ?? review.firstSeenAt),
    timeUsingApp: review.timeUsingApp,
    firstSeenAt: iso(review.firstSeenAt),
    removedAt: iso(review.removedAt),
    listingUrl: review.appUrl,
    severity: { score: severity.score, priority: severity.priority, reasons: severity.reasons },
    keywordGroups: presenter.keywordGroups(review.content),
    triage: triageJson(detail.triage),
    notes: detail.notes.map((n) => ({
      id: n.id,
      author: n.author,
      body: n.body,
      createdAt: iso(n.createdAt),
    })),
    audit: detail.audit.map(eventJson),
    edits: detail.edits.map((e) => ({
      detectedAt: iso(e.detectedAt),
      oldRating: e.oldRating,
      newRating: e.newRating,
      oldContent: e.oldContent,
      newContent: e.newContent,
    })),
    alerts: detail.alerts.map(({ alert, deliveries }) => ({
      id: alert.id,
      kind: alert.kind,
      priority: alert.priority,
      createdAt: iso(alert.createdAt),
      deliveries: deliveries.map((d) => ({
        channel: d.channel,
        status: d.status,
        attempts: d.attempts,
        sentAt: iso(d.sentAt),
        lastError: d.lastError,
      })),
    })),
  };
}

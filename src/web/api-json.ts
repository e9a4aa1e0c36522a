/**
 * The JSON shapes of the API (`/api/reviews`, `/api/reviews/:id`), documented in docs/inbox.md: dates as ISO
 * strings, the same severity and automatic tags the pages show, and each review's URL in the inbox.
 */
import type { InboxRow } from '../store/inbox.js';
import type { ReviewDetail } from '../store/review-detail.js';
import { WRITTEN_FIELDS } from '../store/review-fields.js';
import type { TriageEventRow } from '../store/schema.js';
import type { TriageState } from '../store/triage.js';
import { pick } from '../util/pick.js';
import type { Presenter } from './present.js';
import { listedOf, REVIEW_OUTPUT, reviewUrl } from './review-output.js';

const JSON_FIELDS = REVIEW_OUTPUT.flatMap((field) => (field.json ? [field.json] : []));

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** A listed review as the API gives it (web/review-output.ts). */
export function rowJson(row: InboxRow, presenter: Presenter, publicUrl: string | undefined) {
  const review = listedOf(row, presenter, publicUrl);
  return Object.fromEntries(JSON_FIELDS.map((field) => [field.key, field.value(review)]));
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
    ...pick(review, WRITTEN_FIELDS),
    date: iso(review.createdAt ?? review.firstSeenAt),
    timeUsingApp: review.timeUsingApp,
    firstSeenAt: iso(review.firstSeenAt),
    removedAt: iso(review.removedAt),
    listingUrl: review.appUrl,
    severity: { score: severity.score, priority: severity.priority, reasons: severity.reasons },
    keywordGroups: presenter.keywordGroups(review.content),
    topics: review.topics.map((t) => ({ name: t.name, words: t.words })),
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

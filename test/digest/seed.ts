/**
 * Seeds a real SQLite store with the rows a digest reads: apps, reviews with chosen dates, rating
 * snapshots, edits, and alerts with failed deliveries.
 */
import type { Alert } from '../../src/alerts/types.js';
import type { StoreDb } from '../../src/store/db.js';
import { alerts, apps, deliveries, pollRuns, ratingSnapshots, reviewEdits } from '../../src/store/schema.js';
import { storeReview } from '../helpers/reviews.js';

export interface SeedReview {
  rating: number;
  content: string;
  /** The review's own date; null for one whose date could not be parsed. */
  createdAt: Date | null;
  /** As the API sent it; defaults to createdAt in ISO form, or "Invalid Date". */
  createdDate?: string;
  /** Defaults to createdAt (or a fixed date when that is null). */
  firstSeenAt?: Date;
  reviewer?: string;
  location?: string;
  timeUsingApp?: string;
  fromBaseline?: boolean;
}

export class Seed {
  private readonly runs = new Map<string, number>();
  private counter = 0;

  constructor(private readonly db: StoreDb) {}

  app(handle: string, title: string | null = null): this {
    this.db.insert(apps).values({ handle, title }).run();
    const at = new Date('2026-01-01T00:00:00Z');
    const run = this.db
      .insert(pollRuns)
      .values({
        appHandle: handle,
        startedAt: at,
        finishedAt: at,
        status: 'ok',
        requests: 1,
        pages: 1,
        newReviews: 0,
        editedReviews: 0,
      })
      .returning({ id: pollRuns.id })
      .get();
    this.runs.set(handle, run.id);
    return this;
  }

  private run(handle: string): number {
    const id = this.runs.get(handle);
    if (id === undefined) throw new Error(`seed the app ${handle} first`);
    return id;
  }

  /** Returns the review's row id. */
  review(handle: string, r: SeedReview): number {
    this.counter += 1;
    const id = `r${this.counter}`;
    const firstSeenAt = r.firstSeenAt ?? r.createdAt ?? new Date('2026-01-01T00:00:00Z');
    return storeReview(this.db, {
      appHandle: handle,
      identity: id,
      reviewer: r.reviewer ?? `Shop ${this.counter}`,
      location: r.location ?? 'Germany',
      rating: r.rating,
      content: r.content,
      createdDate: r.createdDate ?? (r.createdAt === null ? 'Invalid Date' : r.createdAt.toISOString()),
      createdAt: r.createdAt,
      timeUsingApp: r.timeUsingApp ?? '',
      appName: handle,
      appUrl: `https://apps.example/${handle}`,
      fromBaseline: r.fromBaseline ?? false,
      firstSeenAt,
      pollRunId: this.run(handle),
    });
  }

  snapshot(handle: string, at: string, average: number | null, count: number | null): this {
    this.db
      .insert(ratingSnapshots)
      .values({ appHandle: handle, takenAt: new Date(at), average, count, pollRunId: this.run(handle) })
      .run();
    return this;
  }

  edit(handle: string, reviewRowId: number, oldRating: number, newRating: number, at: string): this {
    this.db
      .insert(reviewEdits)
      .values({
        reviewRowId,
        appHandle: handle,
        oldRating,
        newRating,
        oldContent: '',
        newContent: '',
        oldCreatedDate: '',
        newCreatedDate: '',
        detectedAt: new Date(at),
        pollRunId: this.run(handle),
      })
      .run();
    return this;
  }

  /** An alert with one delivery per channel in the given state. */
  alert(
    handle: string,
    payload: Alert,
    at: string,
    channels: Array<{ channel: string; status: 'pending' | 'held' | 'sent' | 'failed'; lastError?: string }>,
  ): this {
    this.counter += 1;
    const alert = this.db
      .insert(alerts)
      .values({
        appHandle: handle,
        kind: payload.kind,
        dedupeKey: `seed-${this.counter}`,
        priority: 'high',
        payload,
        createdAt: new Date(at),
      })
      .returning({ id: alerts.id })
      .get();
    for (const d of channels) {
      this.db
        .insert(deliveries)
        .values({
          alertId: alert.id,
          channel: d.channel,
          appHandle: handle,
          status: d.status,
          lastError: d.lastError ?? null,
          createdAt: new Date(at),
        })
        .run();
    }
    return this;
  }
}

export function reviewAlertPayload(handle: string, reviewer: string, rating: number): Alert {
  return {
    kind: 'review',
    app: { handle, name: handle, url: `https://apps.example/${handle}` },
    review: {
      reviewId: 'x',
      reviewer,
      location: '',
      rating,
      content: '',
      createdDate: '',
      timeUsingApp: '',
    },
    severity: { score: 60, priority: 'high', reasons: [`${rating} star`] },
  };
}

/** The text a reader sees in HTML: tags dropped, the few entities the renderers write decoded. */
export function visibleText(html: string): string {
  return html
    .replace(/<br>/g, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ');
}

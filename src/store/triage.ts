/**
 * Triage of reviews by a support team: a status, an assignee, free tags and a notes thread per review, and
 * an audit trail of every change with who made it and when. A review without a `review_triage` row is
 * `new`. Every change is one transaction: the state and its audit rows are written together or not at all.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import { ExitCode, ReviewwatchError } from '../errors.js';
import type { Db, StoreDb } from './db.js';
import {
  type ReviewNoteRow,
  reviewNotes,
  reviews,
  reviewTags,
  reviewTriage,
  TRIAGE_STATUSES,
  type TriageEventRow,
  type TriageStatus,
  triageEvents,
  users,
} from './schema.js';

export { TRIAGE_STATUSES, type TriageStatus } from './schema.js';

/** Who changed something: a user's name, or one of these for changes no person made. */
export const TOKEN_ACTOR = '@token';
export const SYSTEM_ACTOR = '@system';

export const MAX_TAG_LENGTH = 40;
export const MAX_NOTE_LENGTH = 10_000;
/** More would make the inbox rows unreadable; a team that needs more wants a different word. */
export const MAX_TAGS_PER_REVIEW = 20;

/** A change someone asked for that cannot be made: an unknown review, user, status, or a malformed tag. */
export class TriageInputError extends ReviewwatchError {
  constructor(message: string) {
    super(message, { exitCode: ExitCode.Usage });
  }
}

export interface TriageState {
  status: TriageStatus;
  assignee: string | null;
  tags: string[];
  /** When and by whom the status or assignee last changed; null for a review nobody touched. */
  updatedAt: Date | null;
  updatedBy: string | null;
}

export interface TriageChange {
  status?: TriageStatus;
  /** null unassigns. */
  assignee?: string | null;
  addTags?: readonly string[];
  removeTags?: readonly string[];
  note?: string;
}

export interface TriageResult {
  state: TriageState;
  /** The audit rows this change wrote; empty when it changed nothing. */
  events: TriageEventRow[];
}

export function isTriageStatus(value: string): value is TriageStatus {
  return (TRIAGE_STATUSES as readonly string[]).includes(value);
}

const TAG_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N}._-]*$/u;

/**
 * A tag as stored: trimmed, lower case, inner spaces as `-`, so "Billing issue" and "billing-issue" are one
 * tag. Throws on an empty, overlong or punctuation-only tag.
 */
export function normalizeTag(raw: string): string {
  const tag = raw.trim().toLowerCase().replace(/\s+/g, '-');
  if (tag.length === 0) throw new TriageInputError('a tag cannot be empty');
  if (tag.length > MAX_TAG_LENGTH) {
    throw new TriageInputError(`a tag is at most ${MAX_TAG_LENGTH} characters, got ${tag.length}`);
  }
  if (!TAG_PATTERN.test(tag)) {
    throw new TriageInputError(
      `"${tag}" is not a tag: letters and digits, then also ".", "_" or "-" (spaces become "-")`,
    );
  }
  return tag;
}

export function triageOf(db: Db, reviewRowId: number): TriageState {
  const row = db.select().from(reviewTriage).where(eq(reviewTriage.reviewRowId, reviewRowId)).get();
  const tags = db
    .select({ tag: reviewTags.tag })
    .from(reviewTags)
    .where(eq(reviewTags.reviewRowId, reviewRowId))
    .orderBy(asc(reviewTags.tag))
    .all()
    .map((r) => r.tag);
  return {
    status: row?.status ?? 'new',
    assignee: row?.assignee ?? null,
    tags,
    updatedAt: row?.updatedAt ?? null,
    updatedBy: row?.updatedBy ?? null,
  };
}

/**
 * Applies a change to one review's triage, in one transaction, and records one audit row per field it
 * really changed: setting the status a review already has writes nothing. Throws `TriageInputError` for
 * an unknown review or assignee, a bad tag or an empty or overlong note, having written nothing.
 */
export function applyTriage(
  db: StoreDb,
  reviewRowId: number,
  change: TriageChange,
  actor: string,
  at: Date,
): TriageResult {
  // Validated before the transaction opens: a bad request never holds the write lock.
  const addTags = [...new Set((change.addTags ?? []).map(normalizeTag))];
  const removeTags = [...new Set((change.removeTags ?? []).map(normalizeTag))];
  const note = change.note?.trim();
  if (change.note !== undefined && !note) throw new TriageInputError('a note cannot be empty');
  if (note && note.length > MAX_NOTE_LENGTH) {
    throw new TriageInputError(`a note is at most ${MAX_NOTE_LENGTH} characters, got ${note.length}`);
  }
  if (change.status !== undefined && !isTriageStatus(change.status)) {
    throw new TriageInputError(`the status is one of ${TRIAGE_STATUSES.join(', ')}`);
  }
  return db.$client
    .transaction((): TriageResult => {
      if (!db.select({ id: reviews.id }).from(reviews).where(eq(reviews.id, reviewRowId)).get()) {
        throw new TriageInputError(`no review ${reviewRowId}`);
      }
      if (change.assignee) {
        const name = change.assignee;
        if (!db.select({ id: users.id }).from(users).where(eq(users.name, name)).get()) {
          throw new TriageInputError(`no user named "${name}" (see \`reviewwatch user list\`)`);
        }
      }
      const before = triageOf(db, reviewRowId);
      const events: Array<Omit<TriageEventRow, 'id'>> = [];
      const event = (field: TriageEventRow['field'], oldValue: string | null, newValue: string | null) =>
        events.push({ reviewRowId, actor, at, field, oldValue, newValue, reason: null });

      const status = change.status ?? before.status;
      const assignee = change.assignee === undefined ? before.assignee : change.assignee;
      if (status !== before.status) event('status', before.status, status);
      if (assignee !== before.assignee) event('assignee', before.assignee, assignee);
      if (status !== before.status || assignee !== before.assignee) {
        writeState(db, reviewRowId, { status, assignee }, actor, at);
      }

      const tags = new Set(before.tags);
      for (const tag of removeTags) {
        if (!tags.delete(tag)) continue;
        db.delete(reviewTags)
          .where(and(eq(reviewTags.reviewRowId, reviewRowId), eq(reviewTags.tag, tag)))
          .run();
        event('tag', tag, null);
      }
      for (const tag of addTags) {
        if (tags.has(tag) || removeTags.includes(tag)) continue;
        if (tags.size >= MAX_TAGS_PER_REVIEW) {
          throw new TriageInputError(`a review has at most ${MAX_TAGS_PER_REVIEW} tags`);
        }
        tags.add(tag);
        db.insert(reviewTags).values({ reviewRowId, tag, addedAt: at, addedBy: actor }).run();
        event('tag', null, tag);
      }

      if (note) {
        const { id } = db
          .insert(reviewNotes)
          .values({ reviewRowId, author: actor, body: note, createdAt: at })
          .returning({ id: reviewNotes.id })
          .get();
        event('note', null, String(id));
      }
      const written = events.length === 0 ? [] : db.insert(triageEvents).values(events).returning().all();
      return { state: triageOf(db, reviewRowId), events: written };
    })
    .immediate();
}

/** At most this many reviews in one bulk change: one short transaction, one readable audit. */
export const MAX_BULK = 500;

/**
 * The same change to several reviews (bulk actions), all or nothing: an unknown review or a bad value
 * anywhere changes none of them. Returns each review's result, in the order given.
 */
export function applyTriageToMany(
  db: StoreDb,
  reviewRowIds: readonly number[],
  change: TriageChange,
  actor: string,
  at: Date,
): Array<{ reviewRowId: number } & TriageResult> {
  const ids = [...new Set(reviewRowIds)];
  if (ids.length === 0) throw new TriageInputError('select at least one review');
  if (ids.length > MAX_BULK)
    throw new TriageInputError(`at most ${MAX_BULK} reviews at once, got ${ids.length}`);
  return db.$client
    .transaction(() => ids.map((id) => ({ reviewRowId: id, ...applyTriage(db, id, change, actor, at) })))
    .immediate();
}

function writeState(
  db: Db,
  reviewRowId: number,
  state: { status: TriageStatus; assignee: string | null },
  actor: string,
  at: Date,
): void {
  db.insert(reviewTriage)
    .values({ reviewRowId, ...state, updatedAt: at, updatedBy: actor })
    .onConflictDoUpdate({
      target: reviewTriage.reviewRowId,
      set: { ...state, updatedAt: at, updatedBy: actor },
    })
    .run();
}

/**
 * An edit that lowered the rating of a resolved review reopens it (status back to `new`), recorded as done
 * by `@system` with the reason. Runs inside the transaction that records the edit (store/reviews.ts).
 * Returns whether it reopened the review.
 */
export function reopenIfRerated(
  db: Db,
  reviewRowId: number,
  rating: { from: number; to: number },
  at: Date,
): boolean {
  if (rating.to >= rating.from) return false;
  const row = db
    .select({ status: reviewTriage.status, assignee: reviewTriage.assignee })
    .from(reviewTriage)
    .where(eq(reviewTriage.reviewRowId, reviewRowId))
    .get();
  if (row?.status !== 'resolved') return false;
  writeState(db, reviewRowId, { status: 'new', assignee: row.assignee }, SYSTEM_ACTOR, at);
  db.insert(triageEvents)
    .values({
      reviewRowId,
      actor: SYSTEM_ACTOR,
      at,
      field: 'status',
      oldValue: 'resolved',
      newValue: 'new',
      reason: `re-rated from ${rating.from} to ${rating.to} stars`,
    })
    .run();
  return true;
}

/** A review's notes, oldest first. */
export function notesOf(db: Db, reviewRowId: number): ReviewNoteRow[] {
  return db
    .select()
    .from(reviewNotes)
    .where(eq(reviewNotes.reviewRowId, reviewRowId))
    .orderBy(asc(reviewNotes.id))
    .all();
}

/** A review's audit trail, oldest first. */
export function auditOf(db: Db, reviewRowId: number): TriageEventRow[] {
  return db
    .select()
    .from(triageEvents)
    .where(eq(triageEvents.reviewRowId, reviewRowId))
    .orderBy(asc(triageEvents.at), asc(triageEvents.id))
    .all();
}

/**
 * Moves the triage of a row about to be deleted as a duplicate (store/reconcile.ts) to the row that stays:
 * its notes, audit trail and tags always; its status and assignee only when the row that stays has none.
 * Without it the delete would fail on the foreign keys of any triaged duplicate.
 */
export function moveTriage(db: Db, keepRowId: number, dropRowId: number): void {
  db.update(reviewNotes).set({ reviewRowId: keepRowId }).where(eq(reviewNotes.reviewRowId, dropRowId)).run();
  db.update(triageEvents)
    .set({ reviewRowId: keepRowId })
    .where(eq(triageEvents.reviewRowId, dropRowId))
    .run();
  const kept = new Set(triageOf(db, keepRowId).tags);
  for (const tag of db.select().from(reviewTags).where(eq(reviewTags.reviewRowId, dropRowId)).all()) {
    if (!kept.has(tag.tag))
      db.insert(reviewTags)
        .values({ ...tag, reviewRowId: keepRowId })
        .run();
  }
  db.delete(reviewTags).where(eq(reviewTags.reviewRowId, dropRowId)).run();
  const dropped = db.select().from(reviewTriage).where(eq(reviewTriage.reviewRowId, dropRowId)).get();
  if (dropped) {
    db.delete(reviewTriage).where(eq(reviewTriage.reviewRowId, dropRowId)).run();
    db.insert(reviewTriage)
      .values({ ...dropped, reviewRowId: keepRowId })
      .onConflictDoNothing()
      .run();
  }
}

/** The status changes among these audit rows that `actor` made: what an undo offers to take back. */
export function statusChangesBy(db: Db, eventIds: readonly number[], actor: string): TriageEventRow[] {
  if (eventIds.length === 0) return [];
  return db
    .select()
    .from(triageEvents)
    .where(
      and(
        inArray(triageEvents.id, [...new Set(eventIds)]),
        eq(triageEvents.field, 'status'),
        eq(triageEvents.actor, actor),
      ),
    )
    .orderBy(asc(triageEvents.id))
    .all();
}

/**
 * Takes back status changes `actor` made (an "undo" after resolving): each review whose status is still
 * the one the change set gets its old one back, recorded in the audit trail as any change. A review
 * someone changed again since is left as it is. All in one transaction; returns how many were restored.
 */
export function undoStatusChanges(db: StoreDb, eventIds: readonly number[], actor: string, at: Date): number {
  return db.$client
    .transaction(() => {
      let restored = 0;
      for (const event of statusChangesBy(db, eventIds, actor)) {
        const old = event.oldValue ?? 'new';
        if (!isTriageStatus(old) || triageOf(db, event.reviewRowId).status !== event.newValue) continue;
        applyTriage(db, event.reviewRowId, { status: old }, actor, at);
        restored++;
      }
      return restored;
    })
    .immediate();
}

/**
 * Which rating snapshots a prune keeps: every one of the recent past, then the last of each hour, then
 * the last of each day. Hours and days are those of one time zone (the digest's), so a week the digest
 * reports on starts and ends on a bucket boundary, and the latest snapshot before any boundary is the
 * same before and after downsampling: that is what the digest's rating history reads (digest/queries.ts,
 * `ratingBefore`). The last snapshot with an average wins over a later one without, because that reader
 * skips snapshots without one.
 */
import { DateTime, IANAZone } from 'luxon';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Time zone offsets change on a quarter-hour grid: one lookup per quarter hour is exact. */
const SLOT_MS = 900_000;

export interface SnapshotTiers {
  /** Snapshots taken at or after this are all kept (the start of a local hour). */
  fullFrom: number;
  /** Snapshots from here to `fullFrom` keep one per local hour; older ones one per local day. */
  hourlyFrom: number;
  /** The bucket a snapshot taken at `t` (before `fullFrom`) belongs to: equal keys, same bucket. */
  bucketOf(t: number): number;
}

export function snapshotTiers(
  now: Date,
  rule: { fullDetailMs: number; hourlyMs: number },
  timezone: string,
): SnapshotTiers {
  const zone = IANAZone.create(timezone);
  if (!zone.isValid) throw new Error(`Unknown time zone "${timezone}"`);
  const offsets = new Map<number, number>();
  const offsetAt = (t: number): number => {
    const slot = Math.floor(t / SLOT_MS);
    let offset = offsets.get(slot);
    if (offset === undefined) {
      offset = zone.offset(t) * 60_000;
      offsets.set(slot, offset);
    }
    return offset;
  };
  const mod = (a: number, b: number) => ((a % b) + b) % b;
  // An instant, not a wall-clock hour: the hour a DST change repeats is two buckets, not one.
  const hourStart = (t: number) => t - mod(t + offsetAt(t), HOUR_MS);
  const fullFrom = hourStart(now.getTime() - rule.fullDetailMs);
  const hourlyFrom = Math.min(
    fullFrom,
    DateTime.fromMillis(now.getTime() - rule.hourlyMs, { zone })
      .startOf('day')
      .toMillis(),
  );
  return {
    fullFrom,
    hourlyFrom,
    // Hour keys are instants (positive), day keys negative local day numbers: the tiers never share a key.
    bucketOf: (t) => (t >= hourlyFrom ? hourStart(t) : -1 - Math.floor((t + offsetAt(t)) / DAY_MS)),
  };
}

/** One snapshot as the prune reads it. */
export type SnapshotRef = [id: number, takenAt: number, hasAverage: 0 | 1, pollRunId: number];

/** Whether `a` is a better one to keep than `b`: one with an average, then the later, then the newer row. */
function better(a: SnapshotRef, b: SnapshotRef): boolean {
  if (a[2] !== b[2]) return a[2] > b[2];
  if (a[1] !== b[1]) return a[1] > b[1];
  return a[0] > b[0];
}

/**
 * Follows one app's snapshots and reports those to delete: all but the kept one of each bucket. A bucket's
 * decision waits until a snapshot of another bucket (or `end()`) comes. Snapshots may come in any order:
 * a bucket seen twice is decided twice, and each decision drops only snapshots its own kept one beats, so
 * the best of every bucket always stays (an out-of-order one at worst keeps an extra snapshot until the
 * next prune).
 */
export class Downsampler {
  readonly #bucketOf: (t: number) => number;
  readonly #drop: (row: SnapshotRef) => void;
  #key: number | undefined;
  #rows: SnapshotRef[] = [];
  #keep: SnapshotRef | undefined;

  constructor(bucketOf: (t: number) => number, drop: (row: SnapshotRef) => void) {
    this.#bucketOf = bucketOf;
    this.#drop = drop;
  }

  add(row: SnapshotRef): void {
    const key = this.#bucketOf(row[1]);
    if (key !== this.#key) {
      this.end();
      this.#key = key;
    }
    this.#rows.push(row);
    if (this.#keep === undefined || better(row, this.#keep)) this.#keep = row;
  }

  /** Decides the bucket in progress. */
  end(): void {
    for (const row of this.#rows) if (row !== this.#keep) this.#drop(row);
    this.#rows = [];
    this.#keep = undefined;
    this.#key = undefined;
  }
}

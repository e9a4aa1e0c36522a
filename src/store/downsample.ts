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

/** One snapshot as the prune reads it, in `taken_at, id` order. */
export type SnapshotRef = [id: number, takenAt: number, hasAverage: 0 | 1];

/**
 * Walks an app's snapshots in time order, page by page, and reports the ids to delete: all but the kept
 * one of each bucket. A bucket may span two pages, so its decision waits for the next bucket or `end()`.
 */
export class Downsampler {
  readonly #bucketOf: (t: number) => number;
  readonly #drop: (id: number) => void;
  #key: number | undefined;
  #ids: number[] = [];
  /** The bucket's last snapshot with an average, else its last one. */
  #keep: number | undefined;
  #keepHasAverage = false;

  constructor(bucketOf: (t: number) => number, drop: (id: number) => void) {
    this.#bucketOf = bucketOf;
    this.#drop = drop;
  }

  add([id, takenAt, hasAverage]: SnapshotRef): void {
    const key = this.#bucketOf(takenAt);
    if (key !== this.#key) {
      this.end();
      this.#key = key;
    }
    this.#ids.push(id);
    if (hasAverage === 1 || !this.#keepHasAverage) {
      this.#keep = id;
      this.#keepHasAverage = hasAverage === 1;
    }
  }

  /** Decides the bucket in progress. */
  end(): void {
    for (const id of this.#ids) if (id !== this.#keep) this.#drop(id);
    this.#ids = [];
    this.#keep = undefined;
    this.#keepHasAverage = false;
    this.#key = undefined;
  }
}

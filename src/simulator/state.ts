/**
 * The simulator's mutable world and the controls that change it. The HTTP layer only reads through the
 * accessors at the bottom; every control invalidates exactly the caches it affects, so serving a page is
 * a slice of a pre-sorted array no matter how large the catalog is.
 */

import { BodyCache } from './cache.js';
import {
  type AppMeta,
  appPlacement,
  CATEGORIES,
  type DeveloperMeta,
  dayOf,
  formatDay,
  generateAppMeta,
  generateDevelopers,
  generateHistory,
  makeReview,
  SEEDED_ID_BASE,
  type StoredReview,
  seededRating,
  seededReviewCount,
} from './data.js';
import { badRequest, notFound, SimulatorError } from './errors.js';
import { FaultQueue } from './faults.js';
import { DEFAULT_NOISE, MARKET_EVENT_KINDS, type MarketEvent, type RankNoise } from './market.js';
import { Rng } from './random.js';
import {
  type Endpoint,
  type FailSpec,
  type MalformSpec,
  NO_QUIRKS,
  type Quirks,
  type SimulatorOptions,
  type SimulatorStats,
  type SummaryEntry,
  type WireReview,
} from './types.js';

const HANDLE_RE = /^[a-z0-9][a-z0-9-]{0,199}$/;
const MAX_ADD = 10_000;

/** One app. Meta and reviews are generated on first use; the derived arrays are dropped on any change. */
export interface AppRecord {
  readonly handle: string;
  /** Position among the initial apps (seeded review ids derive from it); -1 for apps added later. */
  readonly index: number;
  readonly explicit: boolean;
  readonly title: string | undefined;
  delisted: boolean;
  /** Bumped on every change to what the app's endpoints return. */
  version: number;
  summaryOverride: SummaryEntry[] | null;
  meta: AppMeta | null;
  reviews: StoredReview[] | null;
  byId: Map<string, StoredReview> | null;
  newest: StoredReview[] | null;
  relevance: StoredReview[] | null;
  /** Visible reviews per star, index 0 = 1 star. */
  counts: number[];
  ratingSum: number;
  /** Set by the market script or addApp: where the app is listed and who publishes it, instead of the seeded. */
  categoryOverride: number | null;
  developerOverride: number | null;
  /** A scripted entrant is listed from this market tick on (unknown before). */
  listedFromTick: number | null;
  /** A scripted steady rank in its category ('place' event). */
  placeRank: number | null;
}

function newRecord(handle: string, index: number, explicit: boolean, title?: string): AppRecord {
  return {
    handle,
    index,
    explicit,
    title,
    delisted: false,
    version: 0,
    summaryOverride: null,
    meta: null,
    reviews: null,
    byId: null,
    newest: null,
    relevance: null,
    counts: [0, 0, 0, 0, 0],
    ratingSum: 0,
    categoryOverride: null,
    developerOverride: null,
    listedFromTick: null,
    placeRank: null,
  };
}

function generatedHandle(i: number): string {
  return `app-${String(i + 1).padStart(5, '0')}`;
}

function checkHandle(handle: unknown): string {
  if (typeof handle !== 'string' || !HANDLE_RE.test(handle)) {
    throw badRequest(
      `handle must be lowercase letters, digits and hyphens (max 200), got ${JSON.stringify(handle)}`,
    );
  }
  return handle;
}

function checkRating(rating: unknown): number {
  if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 5) {
    throw badRequest(`rating must be an integer 1-5, got ${JSON.stringify(rating)}`);
  }
  return rating;
}

function checkNonNegativeInt(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw badRequest(`${name} must be an integer in 0..${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

const REVIEW_STRING_FIELDS = [
  'app_url',
  'app_name',
  'reviewer',
  'review_created_date',
  'reviewer_location',
  'reviewer_latest_used_date',
  'review_content',
  'review_id',
] as const;

function checkPartialReview(value: unknown, at: string): Partial<WireReview> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`${at} must be an object of review fields`);
  }
  const v = value as Record<string, unknown>;
  const out: Partial<WireReview> = {};
  for (const key of Object.keys(v)) {
    const field = v[key];
    if (field === undefined) continue;
    if (key === 'rating') out.rating = checkRating(field);
    else if ((REVIEW_STRING_FIELDS as readonly string[]).includes(key)) {
      if (typeof field !== 'string') throw badRequest(`${at}.${key} must be a string`);
      out[key as (typeof REVIEW_STRING_FIELDS)[number]] = field;
    } else throw badRequest(`${at}.${key} is not a review field`);
  }
  return out;
}

const QUIRK_KEYS = Object.keys(NO_QUIRKS) as Array<keyof Quirks>;

export class SimulatorState {
  readonly seed: number;
  readonly apiKey: string | undefined;
  readonly now: () => number;
  /** Day the simulator started: seeded history runs backward from here (kept across reset()). */
  readonly startDay: number;
  readonly faults = new FaultQueue();

  private readonly opts: SimulatorOptions;
  private readonly initialHandles: string[];
  private readonly explicitHandles: ReadonlySet<string>;
  private readonly maxReviews: number;
  private readonly idStride: number;
  private readonly freshIdBase: number;
  private readonly developerCount: number;
  private readonly arrivalHandles: string[];
  private arrivalTimer: NodeJS.Timeout | undefined;

  private handleList: string[] = [];
  private records = new Map<string, AppRecord>();
  private nextId = 0;
  private nextSeq = 0;
  private addRng: Rng;
  private arrivalRng: Rng;
  private creditsLeft: number | undefined;
  private latency = 0;
  private quirkState: Quirks = { ...NO_QUIRKS };
  private statsData: SimulatorStats = { requests: 0, byStatus: {}, byEndpoint: {} };
  private marketEvents: MarketEvent[] = [];
  private marketTickOffset = 0;
  private marketStartMs = 0;
  /** How the category ranks wobble (market.ts). */
  readonly noise: Readonly<RankNoise>;

  private developerList: DeveloperMeta[] | null = null;
  private developerIndex: Map<string, DeveloperMeta> | null = null;
  private categoryMembers: Map<number, AppRecord[]> | null = null;
  private developerMembers: Map<number, AppRecord[]> | null = null;
  /**
   * Serialised response bodies. Keys of per-app bodies carry the app's version, so a change to an app
   * simply stops hitting its old entries; catalog and quirk changes clear everything.
   */
  readonly bodyCache = new BodyCache();

  constructor(opts: SimulatorOptions = {}) {
    this.opts = opts;
    this.seed = opts.seed ?? 42;
    if (!Number.isInteger(this.seed)) throw badRequest('seed must be an integer');
    this.apiKey = opts.apiKey;
    this.now = opts.now ?? Date.now;
    this.startDay = dayOf(this.now());
    const appCount = checkNonNegativeInt('appCount', opts.appCount ?? 50, 1_000_000);
    this.maxReviews = checkNonNegativeInt('maxReviewsPerApp', opts.maxReviewsPerApp ?? 120, 100_000);
    if (opts.credits !== undefined) checkNonNegativeInt('credits', opts.credits);
    if (opts.latencyMs !== undefined) checkNonNegativeInt('latencyMs', opts.latencyMs, 60_000);

    const handles: string[] = [];
    for (let i = 0; i < appCount; i++) handles.push(generatedHandle(i));
    const explicit = opts.handles ?? [];
    const seen = new Set(handles);
    for (const h of explicit) {
      checkHandle(h);
      if (seen.has(h)) throw badRequest(`handle ${h} is given twice (or clashes with a generated one)`);
      seen.add(h);
      handles.push(h);
    }
    this.initialHandles = handles;
    this.explicitHandles = new Set(explicit);
    this.idStride = this.maxReviews + 1;
    const seededEnd = Math.ceil((SEEDED_ID_BASE + handles.length * this.idStride) / 1e6) * 1e6;
    this.freshIdBase = Math.max(
      seededEnd,
      checkNonNegativeInt('firstNewReviewId', opts.firstNewReviewId ?? 0),
    );
    this.developerCount = Math.max(3, Math.ceil(handles.length / 3));

    const arrival = opts.arrival;
    if (arrival !== undefined) {
      if (!Number.isFinite(arrival.everyMs) || arrival.everyMs < 1) {
        throw badRequest('arrival.everyMs must be a number >= 1');
      }
      const low = arrival.lowShare ?? 0.3;
      if (!(low >= 0 && low <= 1)) throw badRequest('arrival.lowShare must be in 0..1');
      this.arrivalHandles =
        arrival.handles ?? (explicit.length > 0 ? [...explicit] : handles.slice(0, Math.min(5, appCount)));
      for (const h of this.arrivalHandles) {
        if (!seen.has(h)) throw badRequest(`arrival handle ${h} is not one of the simulator's apps`);
      }
      if (this.arrivalHandles.length === 0) throw badRequest('arrival needs at least one app');
    } else {
      this.arrivalHandles = [];
    }

    this.addRng = Rng.from(this.seed, 'added');
    this.arrivalRng = Rng.from(this.seed, 'arrival');
    const tickMs = opts.market?.tickMs;
    if (tickMs !== undefined && !(Number.isFinite(tickMs) && tickMs >= 1)) {
      throw badRequest('market.tickMs must be a number >= 1');
    }
    this.noise = Object.freeze({ ...DEFAULT_NOISE, ...opts.market?.noise });
    this.reset();
  }

  // ----------------------------------------------------------------------------------------------------
  // Controls

  /** Back to the initial seeded state: no faults, no quirks, stats zeroed, credits and latency as started. */
  reset(): void {
    this.handleList = this.initialHandles.slice();
    this.records = new Map();
    this.initialHandles.forEach((h, i) => {
      this.records.set(h, newRecord(h, i, this.explicitHandles.has(h)));
    });
    this.nextId = this.freshIdBase;
    this.nextSeq = 1e9;
    this.addRng = Rng.from(this.seed, 'added');
    this.arrivalRng = Rng.from(this.seed, 'arrival');
    this.creditsLeft = this.opts.credits;
    this.latency = this.opts.latencyMs ?? 0;
    this.quirkState = { ...NO_QUIRKS };
    this.faults.clear();
    this.resetStats();
    this.marketEvents = [];
    this.marketTickOffset = 0;
    this.marketStartMs = this.now();
    this.catalogChanged();
    if (this.opts.market?.events !== undefined) this.addMarketEvents(this.opts.market.events);
  }

  handles(): string[] {
    return this.handleList.slice();
  }

  addApp(handle: string, opts: { reviewCount?: number; title?: string; developer?: string } = {}): void {
    checkHandle(handle);
    let developerIndex: number | null = null;
    if (opts.developer !== undefined) {
      const dev = this.developerByHandle(opts.developer);
      if (dev === undefined) throw notFound(`no developer with handle ${JSON.stringify(opts.developer)}`);
      developerIndex = dev.index;
    }
    if (this.records.has(handle)) throw new SimulatorError(409, `app ${handle} already exists`);
    if (opts.title !== undefined && (typeof opts.title !== 'string' || opts.title.trim() === '')) {
      throw badRequest('title must be a non-empty string');
    }
    const count =
      opts.reviewCount === undefined
        ? seededReviewCount(this.seed, handle, this.maxReviews)
        : checkNonNegativeInt('reviewCount', opts.reviewCount, 100_000);
    const rec = newRecord(handle, -1, true, opts.title);
    rec.developerOverride = developerIndex;
    // Generated now, not lazily: fresh ids come from a shared counter, so generating later would make
    // them depend on the order apps happen to be requested in.
    const meta = this.meta(rec);
    const firstId = this.nextId;
    this.nextId += count;
    rec.reviews = generateHistory(this.seed, meta, count, dayOf(this.now()), (k) => String(firstId + k));
    this.records.set(handle, rec);
    this.handleList.push(handle);
    this.catalogChanged();
  }

  /**
   * New reviews at the top. `reviews` is read newest first (the order the API shows them), so afterwards
   * `reviews(handle).slice(0, n)` equals what this returns. Given fields are kept as given (a
   * review_id too, if it is not already taken in this app; a parseable review_created_date places the
   * review by that date instead of on top); the rest are seeded, dated today.
   */
  addReviews(handle: string, reviews: number | Array<Partial<WireReview>>): WireReview[] {
    const rec = this.record(handle);
    let inputs: Array<Partial<WireReview>>;
    if (typeof reviews === 'number') {
      inputs = Array.from({ length: checkNonNegativeInt('count', reviews, MAX_ADD) }, () => ({}));
    } else if (Array.isArray(reviews)) {
      if (reviews.length > MAX_ADD) throw badRequest(`at most ${MAX_ADD} reviews at once`);
      inputs = reviews.map((r, i) => checkPartialReview(r, `reviews[${i}]`));
    } else {
      throw badRequest('reviews must be a count or an array of review fields');
    }
    const byId = this.reviewIndex(rec);
    const seenIds = new Set<string>();
    for (const r of inputs) {
      if (r.review_id === undefined) continue;
      if (byId.has(r.review_id) || seenIds.has(r.review_id)) {
        throw new SimulatorError(409, `review_id ${JSON.stringify(r.review_id)} already exists in ${handle}`);
      }
      seenIds.add(r.review_id);
    }
    const meta = this.meta(rec);
    const today = dayOf(this.now());
    const created: StoredReview[] = new Array(inputs.length);
    // Oldest (last) first, so ids and sequence numbers grow towards the top of the list.
    for (let i = inputs.length - 1; i >= 0; i--) {
      const given = inputs[i] as Partial<WireReview>;
      const parsed =
        given.review_created_date === undefined ? Number.NaN : Date.parse(given.review_created_date);
      const dayMs = Number.isFinite(parsed) ? dayOf(parsed) : today;
      const id = given.review_id ?? String(this.nextId++);
      const rating = given.rating ?? seededRating(this.addRng, meta.quality);
      const wire = makeReview(this.addRng, meta, { dayMs, id, rating }, given);
      const stored: StoredReview = {
        wire,
        dayMs,
        seq: this.nextSeq++,
        rel: this.addRng.next(),
        archived: false,
      };
      created[i] = stored;
      this.loadReviews(rec).push(stored);
      byId.set(id, stored);
    }
    this.reviewsChanged(rec);
    return created.map((r) => ({ ...r.wire }));
  }

  /** A merchant's edit: new fields, dated today, and so first in newest-first order. */
  editReview(handle: string, reviewId: string, change: { rating?: number; content?: string }): WireReview {
    const rec = this.record(handle);
    const review = this.review(rec, reviewId);
    if (typeof change !== 'object' || change === null) throw badRequest('edit must be an object');
    const rating = change.rating === undefined ? undefined : checkRating(change.rating);
    if (change.content !== undefined && typeof change.content !== 'string') {
      throw badRequest('content must be a string');
    }
    if (rating !== undefined) review.wire.rating = rating;
    if (change.content !== undefined) review.wire.review_content = change.content;
    const today = dayOf(this.now());
    review.dayMs = today;
    review.wire.review_created_date = formatDay(today);
    review.seq = this.nextSeq++;
    this.reviewsChanged(rec);
    return { ...review.wire };
  }

  archiveReview(handle: string, reviewId: string): void {
    const rec = this.record(handle);
    this.review(rec, reviewId).archived = true;
    this.reviewsChanged(rec);
  }

  /** Back in its original place: its date and sequence were never touched. */
  restoreReview(handle: string, reviewId: string): void {
    const rec = this.record(handle);
    this.review(rec, reviewId).archived = false;
    this.reviewsChanged(rec);
  }

  /** Served verbatim instead of the computed summary (quirks do not touch it); null = computed again. */
  setSummary(handle: string, entries: SummaryEntry[] | null): void {
    const rec = this.record(handle);
    rec.version++;
    if (entries === null) {
      rec.summaryOverride = null;
      return;
    }
    if (!Array.isArray(entries)) throw badRequest('summary must be an array of {label, count} or null');
    rec.summaryOverride = entries.map((e, i) => {
      if (typeof e !== 'object' || e === null || typeof e.label !== 'string') {
        throw badRequest(`summary[${i}].label must be a string`);
      }
      if (e.count !== null && (typeof e.count !== 'number' || !Number.isFinite(e.count))) {
        throw badRequest(`summary[${i}].count must be a number or null`);
      }
      return { label: e.label, count: e.count };
    });
  }

  delist(handle: string): void {
    this.record(handle).delisted = true;
    this.catalogChanged();
  }

  relist(handle: string): void {
    this.record(handle).delisted = false;
    this.catalogChanged();
  }

  failNext(count: number, spec: FailSpec): void {
    this.faults.addFail(count, spec);
  }

  malformNext(count: number, spec: MalformSpec = {}): void {
    this.faults.addMalform(count, spec);
  }

  setLatency(ms: number): void {
    this.latency = checkNonNegativeInt('latency ms', ms, 60_000);
  }

  /** Credits left; undefined = not metered. */
  setCredits(credits: number | undefined): void {
    this.creditsLeft = credits === undefined ? undefined : checkNonNegativeInt('credits', credits);
  }

  credits(): number | undefined {
    return this.creditsLeft;
  }

  setQuirks(q: Partial<Quirks>): void {
    if (typeof q !== 'object' || q === null || Array.isArray(q)) throw badRequest('quirks must be an object');
    const next = { ...this.quirkState };
    for (const [key, value] of Object.entries(q)) {
      if (!(QUIRK_KEYS as string[]).includes(key)) {
        throw badRequest(`unknown quirk ${key}; known: ${QUIRK_KEYS.join(', ')}`);
      }
      if (typeof value !== 'boolean') throw badRequest(`quirk ${key} must be true or false`);
      next[key as keyof Quirks] = value;
    }
    this.quirkState = next;
    this.bodyCache.clear();
  }

  quirks(): Quirks {
    return { ...this.quirkState };
  }

  stats(): SimulatorStats {
    return {
      requests: this.statsData.requests,
      byStatus: { ...this.statsData.byStatus },
      byEndpoint: { ...this.statsData.byEndpoint },
    };
  }

  resetStats(): void {
    this.statsData = { requests: 0, byStatus: {}, byEndpoint: {} };
  }

  /** The visible reviews, newest first, as the API would send them without quirks. */
  reviews(handle: string): WireReview[] {
    return this.sortedReviews(this.record(handle), 'newest').map((r) => ({ ...r.wire }));
  }

  // ----------------------------------------------------------------------------------------------------
  // Market

  /** The market's clock: ticks advanced by hand, plus one per `market.tickMs` since the start (if set). */
  marketTick(): number {
    const tickMs = this.opts.market?.tickMs;
    const elapsed = tickMs === undefined ? 0 : Math.floor((this.now() - this.marketStartMs) / tickMs);
    return this.marketTickOffset + Math.max(0, elapsed);
  }

  /** Moves the market on by `ticks` (6 h each): the next category snapshot sees the ranks of then. */
  advanceMarket(ticks: number): number {
    this.marketTickOffset += checkNonNegativeInt('ticks', ticks, 100_000);
    return this.marketTick();
  }

  /** Adds scripted events; an entrant's app is created (unlisted until its tick). */
  addMarketEvents(events: unknown): void {
    if (!Array.isArray(events)) throw badRequest('events must be an array');
    const checked = events.map((e, i) => this.checkMarketEvent(e, `events[${i}]`));
    for (const event of checked) {
      if (event.kind === 'enter') {
        if (!this.records.has(event.handle)) {
          this.addApp(
            event.handle,
            event.title === undefined ? { reviewCount: 3 } : { reviewCount: 3, title: event.title },
          );
        }
        const rec = this.records.get(event.handle) as AppRecord;
        rec.listedFromTick = event.at;
        this.moveToCategory(rec, event.category);
      } else if (event.kind === 'place') {
        const rec = this.record(event.handle);
        rec.placeRank = event.rank;
        this.moveToCategory(rec, event.category);
      } else {
        this.record(event.handle).version++;
      }
      this.marketEvents.push(event);
    }
    this.catalogChanged();
  }

  marketScript(): MarketEvent[] {
    return this.marketEvents.map((e) => ({ ...e }));
  }

  /** The scripted events of an app that have happened by `tick`, in order. */
  eventsOf(handle: string, tick: number): MarketEvent[] {
    return this.marketEvents.filter((e) => e.handle === handle && (!('at' in e) || e.at <= tick));
  }

  /** Scripted events of every app that have happened by `tick`. */
  eventsUntil(tick: number): MarketEvent[] {
    return this.marketEvents.filter((e) => !('at' in e) || e.at <= tick);
  }

  private moveToCategory(rec: AppRecord, category: string): void {
    const index = CATEGORIES.findIndex((c) => c.handle === category);
    rec.categoryOverride = index;
    if (rec.meta !== null) rec.meta = { ...rec.meta, categoryIndex: index };
    rec.version++;
  }

  private checkMarketEvent(value: unknown, at: string): MarketEvent {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw badRequest(`${at} must be an object`);
    const e = value as Record<string, unknown>;
    const kind = e.kind as MarketEvent['kind'];
    if (!(MARKET_EVENT_KINDS as readonly string[]).includes(kind)) {
      throw badRequest(`${at}.kind must be one of ${MARKET_EVENT_KINDS.join(', ')}`);
    }
    const handle = checkHandle(e.handle);
    if (kind !== 'enter' && !this.records.has(handle)) throw notFound(`${at}: no app with handle ${handle}`);
    const tick = (name: string) => checkNonNegativeInt(`${at}.${name}`, e[name], 1_000_000);
    const text = (name: string) => {
      if (typeof e[name] !== 'string' || e[name] === '')
        throw badRequest(`${at}.${name} must be a non-empty string`);
      return e[name] as string;
    };
    const category = (): string => {
      const c = text('category');
      if (!CATEGORIES.some((x) => x.handle === c)) throw notFound(`${at}: no category ${c}`);
      return c;
    };
    switch (kind) {
      case 'rank': {
        const places = e.places;
        if (typeof places !== 'number' || !Number.isFinite(places))
          throw badRequest(`${at}.places must be a number`);
        return { kind, at: tick('at'), handle, places };
      }
      case 'enter': {
        if (this.records.has(handle) && this.records.get(handle)?.listedFromTick === null) {
          throw new SimulatorError(409, `${at}: ${handle} is already listed; an entrant is a new app`);
        }
        const event: MarketEvent = {
          kind,
          at: tick('at'),
          handle,
          category: category(),
          fromRank: checkNonNegativeInt(`${at}.fromRank`, e.fromRank, 10_000),
          toRank: checkNonNegativeInt(`${at}.toRank`, e.toRank, 10_000),
          overTicks: checkNonNegativeInt(`${at}.overTicks`, e.overTicks ?? 0, 100_000),
        };
        if (e.title !== undefined) event.title = text('title');
        return event;
      }
      case 'place':
        return {
          kind,
          handle,
          category: category(),
          rank: checkNonNegativeInt(`${at}.rank`, e.rank, 10_000),
        };
      case 'price':
        return { kind, at: tick('at'), handle, plan: text('plan'), price: text('price') };
      case 'remove-plan':
        return { kind, at: tick('at'), handle, plan: text('plan') };
      case 'listing': {
        const event: MarketEvent = { kind, at: tick('at'), handle };
        if (e.title !== undefined) event.title = text('title');
        if (e.description !== undefined) event.description = text('description');
        return event;
      }
      case 'badge':
        if (typeof e.builtFor !== 'boolean') throw badRequest(`${at}.builtFor must be true or false`);
        return { kind, at: tick('at'), handle, builtFor: e.builtFor };
    }
  }

  // ----------------------------------------------------------------------------------------------------
  // Arrivals

  startArrivals(): void {
    const everyMs = this.opts.arrival?.everyMs;
    if (everyMs === undefined || this.arrivalTimer !== undefined) return;
    this.arrivalTimer = setInterval(() => this.arrive(), everyMs);
    this.arrivalTimer.unref();
  }

  stopArrivals(): void {
    if (this.arrivalTimer !== undefined) clearInterval(this.arrivalTimer);
    this.arrivalTimer = undefined;
  }

  /** One arriving review; exposed so tests can drive arrivals without waiting for the timer. */
  arrive(): WireReview | undefined {
    const from = this.arrivalHandles.length > 0 ? this.arrivalHandles : this.handleList;
    if (from.length === 0) return undefined;
    const handle = this.arrivalRng.pick(from);
    const low = this.arrivalRng.chance(this.opts.arrival?.lowShare ?? 0.3);
    const rating = low ? this.arrivalRng.int(1, 2) : this.arrivalRng.weighted([0, 0, 2, 3, 5]) + 1;
    return this.addReviews(handle, [{ rating }])[0];
  }

  // ----------------------------------------------------------------------------------------------------
  // Read side, for the HTTP layer

  get latencyMs(): number {
    return this.latency;
  }

  get quirkFlags(): Readonly<Quirks> {
    return this.quirkState;
  }

  /** False when metered and out of credits; otherwise takes one. */
  consumeCredit(): boolean {
    if (this.creditsLeft === undefined) return true;
    if (this.creditsLeft <= 0) return false;
    this.creditsLeft--;
    return true;
  }

  recordRequest(endpoint: Endpoint | undefined, status: number): void {
    const s = this.statsData;
    s.requests++;
    const key = String(status);
    s.byStatus[key] = (s.byStatus[key] ?? 0) + 1;
    if (endpoint !== undefined) s.byEndpoint[endpoint] = (s.byEndpoint[endpoint] ?? 0) + 1;
  }

  /** A listed app, or undefined (unknown and delisted look the same from outside). */
  listedApp(handle: string): AppRecord | undefined {
    const rec = this.records.get(handle);
    return rec === undefined || !this.isListed(rec) ? undefined : rec;
  }

  /** Not delisted, and a scripted entrant only from its tick on. */
  isListed(rec: AppRecord): boolean {
    return !rec.delisted && (rec.listedFromTick === null || this.marketTick() >= rec.listedFromTick);
  }

  meta(rec: AppRecord): AppMeta {
    rec.meta ??= generateAppMeta(this.seed, rec.handle, {
      title: rec.title,
      explicit: rec.explicit,
      developerCount: this.developerCount,
      startDay: this.startDay,
    });
    if (rec.categoryOverride !== null) rec.meta.categoryIndex = rec.categoryOverride;
    if (rec.developerOverride !== null) rec.meta.developerIndex = rec.developerOverride;
    return rec.meta;
  }

  sortedReviews(rec: AppRecord, order: 'newest' | 'relevance'): StoredReview[] {
    if (rec.newest === null || rec.relevance === null) this.derive(rec);
    return (order === 'newest' ? rec.newest : rec.relevance) as StoredReview[];
  }

  /** Visible count and average rating (0 when none). */
  ratingOf(rec: AppRecord): { count: number; average: number } {
    const count = this.sortedReviews(rec, 'newest').length;
    return { count, average: count === 0 ? 0 : rec.ratingSum / count };
  }

  developers(): DeveloperMeta[] {
    this.developerList ??= generateDevelopers(this.seed, this.developerCount);
    return this.developerList;
  }

  developerByHandle(handle: string): DeveloperMeta | undefined {
    this.developerIndex ??= new Map(this.developers().map((d) => [d.handle, d]));
    return this.developerIndex.get(handle);
  }

  developer(index: number): DeveloperMeta {
    return this.developers()[index] as DeveloperMeta;
  }

  /** Apps of a category (scripted entrants before their tick too), in seeded order; market.ts ranks them. */
  appsInCategory(categoryIndex: number): AppRecord[] {
    if (this.categoryMembers === null) {
      const members = new Map<number, Array<{ rec: AppRecord; rank: number }>>();
      for (const h of this.handleList) {
        const rec = this.records.get(h) as AppRecord;
        if (rec.delisted) continue;
        const p = appPlacement(this.seed, h, this.developerCount);
        const categoryIndex = rec.categoryOverride ?? p.categoryIndex;
        const list = members.get(categoryIndex);
        if (list === undefined) members.set(categoryIndex, [{ rec, rank: p.rankKey }]);
        else list.push({ rec, rank: p.rankKey });
      }
      this.categoryMembers = new Map();
      for (const [i, list] of members) {
        list.sort((a, b) => a.rank - b.rank);
        this.categoryMembers.set(
          i,
          list.map((m) => m.rec),
        );
      }
    }
    return this.categoryMembers.get(categoryIndex) ?? [];
  }

  /** Apps of a developer, scripted entrants before their tick too (views filter with isListed). */
  appsOfDeveloper(developerIndex: number): AppRecord[] {
    if (this.developerMembers === null) {
      this.developerMembers = new Map();
      for (const h of this.handleList) {
        const rec = this.records.get(h) as AppRecord;
        if (rec.delisted) continue;
        const i = rec.developerOverride ?? appPlacement(this.seed, h, this.developerCount).developerIndex;
        const list = this.developerMembers.get(i);
        if (list === undefined) this.developerMembers.set(i, [rec]);
        else list.push(rec);
      }
    }
    return this.developerMembers.get(developerIndex) ?? [];
  }

  /** Handles of listed apps, in catalog order. */
  listedHandles(): string[] {
    return this.handleList.filter((h) => {
      const rec = this.records.get(h);
      return rec !== undefined && this.isListed(rec);
    });
  }

  // ----------------------------------------------------------------------------------------------------

  private record(handle: string): AppRecord {
    const rec = typeof handle === 'string' ? this.records.get(handle) : undefined;
    if (rec === undefined) throw notFound(`no app with handle ${JSON.stringify(handle)}`);
    return rec;
  }

  private loadReviews(rec: AppRecord): StoredReview[] {
    if (rec.reviews === null) {
      const count = seededReviewCount(this.seed, rec.handle, this.maxReviews);
      const base = SEEDED_ID_BASE + rec.index * this.idStride;
      rec.reviews = generateHistory(this.seed, this.meta(rec), count, this.startDay, (k) => String(base + k));
    }
    return rec.reviews;
  }

  private reviewIndex(rec: AppRecord): Map<string, StoredReview> {
    if (rec.byId === null) {
      const byId = new Map<string, StoredReview>();
      for (const r of this.loadReviews(rec)) if (!byId.has(r.wire.review_id)) byId.set(r.wire.review_id, r);
      rec.byId = byId;
    }
    return rec.byId;
  }

  private review(rec: AppRecord, reviewId: string): StoredReview {
    const r = this.reviewIndex(rec).get(reviewId);
    if (r === undefined) throw notFound(`no review ${JSON.stringify(reviewId)} in app ${rec.handle}`);
    return r;
  }

  private derive(rec: AppRecord): void {
    const visible = this.loadReviews(rec).filter((r) => !r.archived);
    visible.sort((a, b) => b.dayMs - a.dayMs || b.seq - a.seq);
    const relevance = visible.slice().sort((a, b) => a.rel - b.rel || a.seq - b.seq);
    // The default order must never happen to match newest-first: that would hide a client that forgets
    // sortBy=newest.
    if (relevance.length > 1 && relevance.every((r, i) => r === visible[i])) {
      relevance.push(relevance.shift() as StoredReview);
    }
    const counts = [0, 0, 0, 0, 0];
    let sum = 0;
    for (const r of visible) {
      const stars = r.wire.rating;
      counts[stars - 1] = (counts[stars - 1] ?? 0) + 1;
      sum += stars;
    }
    rec.newest = visible;
    rec.relevance = relevance;
    rec.counts = counts;
    rec.ratingSum = sum;
  }

  private reviewsChanged(rec: AppRecord): void {
    rec.version++;
    rec.newest = null;
    rec.relevance = null;
  }

  private catalogChanged(): void {
    this.categoryMembers = null;
    this.developerMembers = null;
    this.bodyCache.clear();
  }
}

/**
 * The `data` payload of each endpoint, built from the state's cached arrays, with the active quirks
 * applied on the way out (stored data never changes because of a quirk). Unknown or delisted handles
 * throw a 404 SimulatorError.
 */
import {
  type AppMeta,
  appUrl,
  CATEGORIES,
  type CategoryMeta,
  type PricingPlan,
  reviewBucket,
  type StoredReview,
} from './data.js';
import { badRequest, notFound } from './errors.js';
import {
  entrantScore,
  lastReshuffleDay,
  reshuffleOffset,
  sponsoredCount,
  sponsorIndex,
  TICKS_PER_DAY,
  wobble,
} from './market.js';
import { unitHash } from './random.js';
import type { AppRecord, SimulatorState } from './state.js';
import type { Endpoint, Quirks, SummaryEntry } from './types.js';

export const REVIEWS_PAGE_SIZE = 10;
export const CATEGORY_PAGE_SIZE = 24;

type Json = Record<string, unknown>;

function listedApp(state: SimulatorState, handle: string): AppRecord {
  const rec = state.listedApp(handle);
  if (rec === undefined) throw notFound(`App not found: ${handle}`);
  return rec;
}

function category(handle: string): { index: number; meta: CategoryMeta } {
  const index = CATEGORIES.findIndex((c) => c.handle === handle);
  if (index < 0) throw notFound(`Category not found: ${handle}`);
  return { index, meta: CATEGORIES[index] as CategoryMeta };
}

/** `page` query value: absent = 1; anything but a positive integer is the client's error. */
export function parsePage(raw: string | null): number {
  if (raw === null) return 1;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw badRequest(`page must be a positive integer, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

function pagination(page: number, total: number, size: number): Json {
  const totalPages = Math.max(1, Math.ceil(total / size));
  return { hasNextPage: page < totalPages, totalPages, currentPage: page };
}

function pageSlice<T>(items: readonly T[], page: number, size: number): T[] {
  const start = (page - 1) * size;
  return start >= items.length ? [] : items.slice(start, start + size);
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

// ---------------------------------------------------------------------------------------------------------
// Reviews

function rewritesReviews(q: Readonly<Quirks>): boolean {
  return q.emptyIds || q.invalidDates || q.missingOptional || q.extraFields;
}

function quirkyReview(r: StoredReview, q: Readonly<Quirks>, seed: number): Json {
  const w = r.wire;
  const bucket = reviewBucket(seed, w.review_id);
  const missing = q.missingOptional && bucket % 5 === 2;
  const out: Json = {
    app_url: w.app_url,
    app_name: w.app_name,
    reviewer: w.reviewer,
    review_created_date: q.invalidDates && bucket % 7 === 0 ? 'Invalid Date' : w.review_created_date,
  };
  if (!missing) out.reviewer_location = w.reviewer_location;
  out.rating = w.rating;
  if (!missing) out.reviewer_latest_used_date = w.reviewer_latest_used_date;
  out.review_content = w.review_content;
  out.review_id = q.emptyIds ? '' : w.review_id;
  if (q.extraFields) {
    out.developer_reply =
      bucket % 4 === 0 ? { content: 'Thanks for the feedback!', date: w.review_created_date } : null;
    out.helpful_count = bucket % 11;
  }
  return out;
}

function summary(state: SimulatorState, rec: AppRecord): SummaryEntry[] | Json[] {
  if (rec.summaryOverride !== null) return rec.summaryOverride;
  state.sortedReviews(rec, 'newest');
  const q = state.quirkFlags;
  const total = state.ratingOf(rec).count;
  const out: Json[] = [];
  for (let stars = 5; stars >= 1; stars--) {
    const count = rec.counts[stars - 1] ?? 0;
    const entry: Json = {
      label: q.starLabels ? `${stars} star${stars === 1 ? '' : 's'}` : String(stars),
      count: q.nullCounts && stars >= 4 ? null : count,
    };
    if (q.extraFields) entry.percentage = total === 0 ? 0 : Math.round((count / total) * 100);
    out.push(entry);
  }
  return out;
}

export function reviewsData(
  state: SimulatorState,
  handle: string,
  page: number,
  sortBy: string | null,
): Json {
  const rec = listedApp(state, handle);
  let order: 'newest' | 'relevance';
  if (sortBy === 'newest') order = 'newest';
  else if (sortBy === null || sortBy === 'relevance') order = 'relevance';
  else throw badRequest(`sortBy must be newest or relevance, got ${JSON.stringify(sortBy)}`);
  const all = state.sortedReviews(rec, order);
  const slice = pageSlice(all, page, REVIEWS_PAGE_SIZE);
  const q = state.quirkFlags;
  const reviews = rewritesReviews(q)
    ? slice.map((r) => quirkyReview(r, q, state.seed))
    : slice.map((r) => r.wire);
  const pages = pagination(page, all.length, REVIEWS_PAGE_SIZE);
  if (q.extraFields) pages.perPage = REVIEWS_PAGE_SIZE;
  const data: Json = { reviews, summary: summary(state, rec), pagination: pages };
  if (q.extraFields) data.scrapedAt = new Date(state.now()).toISOString();
  return data;
}

// ---------------------------------------------------------------------------------------------------------
// Catalog

/** A category's listed apps at a market tick, best first: place + wobble + reshuffle + scripted moves. */
export function rankedMembers(state: SimulatorState, index: number, tick: number): AppRecord[] {
  const meta = CATEGORIES[index] as CategoryMeta;
  const members = state.appsInCategory(index);
  const reshuffleDay = lastReshuffleDay(state.seed, tick, state.noise);
  const events = state.eventsUntil(tick);
  const shift = new Map<string, number>();
  for (const e of events) if (e.kind === 'rank') shift.set(e.handle, (shift.get(e.handle) ?? 0) + e.places);
  const entrants = new Map(events.flatMap((e) => (e.kind === 'enter' ? [[e.handle, e] as const] : [])));
  const scored: Array<{ rec: AppRecord; score: number }> = [];
  let seeded = 0;
  for (const rec of members) {
    if (!state.isListed(rec)) continue;
    const entrant = entrants.get(rec.handle);
    let place: number;
    if (entrant !== undefined) place = entrantScore(entrant, tick);
    else if (rec.placeRank !== null) place = rec.placeRank - 1.5;
    else place = seeded++;
    const score =
      place +
      wobble(state.seed, meta.handle, rec.handle, tick, state.noise) +
      reshuffleOffset(state.seed, meta.handle, rec.handle, reshuffleDay, state.noise) +
      (shift.get(rec.handle) ?? 0);
    scored.push({ rec, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.rec.handle < b.rec.handle ? -1 : 1));
  return scored.map((s) => s.rec);
}

/** The Built-for badge of an app at a tick: seeded, then as the script set it. */
function builtFor(state: SimulatorState, rec: AppRecord, app: AppMeta, tick: number): boolean {
  let badge = app.isBuiltForPlatform;
  for (const e of state.eventsOf(rec.handle, tick)) if (e.kind === 'badge') badge = e.builtFor;
  return badge;
}

const HOSTILE_TITLES = ['<!channel> ', '<https://evil.example|', '*', 'Tom & Jerry <script>x</script> '];

/** One app in five, by handle, when the hostileText quirk is on. */
function isHostile(state: SimulatorState, handle: string): boolean {
  return state.quirkFlags.hostileText && unitHash(state.seed, 'hostile', handle) < 0.2;
}

/** The title as shown at a tick: seeded, scripted, with hostile text when that quirk is on. */
function titleOf(state: SimulatorState, rec: AppRecord, app: AppMeta, tick: number): string {
  let title = app.title;
  for (const e of state.eventsOf(rec.handle, tick))
    if (e.kind === 'listing' && e.title !== undefined) title = e.title;
  if (!isHostile(state, rec.handle)) return title;
  const prefix = HOSTILE_TITLES[
    Math.floor(unitHash(state.seed, 'hostile-kind', rec.handle) * HOSTILE_TITLES.length)
  ] as string;
  return prefix.endsWith('|') ? `${prefix}${title}>` : `${prefix}${title}`;
}

function listedRating(state: SimulatorState, rec: AppRecord): number | string {
  const rating = round1(state.ratingOf(rec).average);
  return state.quirkFlags.ratingStrings ? rating.toFixed(1) : rating;
}

function categoryEntry(state: SimulatorState, rec: AppRecord, tick: number, sponsored: boolean): Json {
  const app = state.meta(rec);
  const entry: Json = {
    name: titleOf(state, rec, app, tick),
    url: app.url,
    handle: rec.handle,
    developer: state.developer(app.developerIndex).name,
    rating: listedRating(state, rec),
    isSponsored: sponsored,
    isBuiltForPlatform: builtFor(state, rec, app, tick),
    position: 0,
  };
  if (state.quirkFlags.extraFields) entry.reviewCount = state.ratingOf(rec).count;
  return entry;
}

/**
 * One page of a category at the market's tick: the day's ads first (positions count them), then the
 * organic results in rank order. Page sizes stay 24; ads take organic places, so later pages start later.
 */
export function categoryData(state: SimulatorState, handle: string, page: number): Json {
  const { index, meta } = category(handle);
  const tick = state.marketTick();
  const day = Math.floor(tick / TICKS_PER_DAY);
  const seededOrder = state.appsInCategory(index).filter((rec) => state.isListed(rec));
  const ranked = rankedMembers(state, index, tick);
  const q = state.quirkFlags;
  const adsOn = (p: number) =>
    ranked.length === 0
      ? 0
      : Math.min(sponsoredCount(state.seed, meta.handle, p, day), CATEGORY_PAGE_SIZE - 1);
  // Where this page's organic results start, and how many pages the category fills.
  let start = ranked.length;
  let totalPages = 1;
  for (let p = 1, s = 0; ; p++) {
    if (p === page) start = s;
    s += CATEGORY_PAGE_SIZE - adsOn(p);
    if (s >= ranked.length) {
      totalPages = p;
      break;
    }
  }
  const apps: Json[] = [];
  if (page <= totalPages && ranked.length > 0) {
    const ads = adsOn(page);
    for (let slot = 0; slot < ads; slot++) {
      const holder = sponsorIndex(state.seed, meta.handle, page * 10 + slot, day, seededOrder.length);
      apps.push(categoryEntry(state, seededOrder[holder] as AppRecord, tick, true));
    }
    if (q.duplicateEntries && page > 1 && start > 0) {
      apps.push(categoryEntry(state, ranked[start - 1] as AppRecord, tick, false));
    }
    for (const rec of ranked.slice(start, start + CATEGORY_PAGE_SIZE - ads)) {
      apps.push(categoryEntry(state, rec, tick, false));
    }
  }
  // Positions count from 1 on each page, ads included; the glitches continue, repeat and skip them.
  const offset = q.positionGlitches ? (page - 1) * CATEGORY_PAGE_SIZE : 0;
  let position = offset;
  apps.forEach((entry, i) => {
    if (!(q.positionGlitches && i === 6)) position++;
    if (q.positionGlitches && i === 11) position += 2;
    entry.position = position;
  });
  const data: Json = {
    name: meta.name,
    description: meta.description,
    appCount: ranked.length,
    apps,
    pagination: { hasNextPage: page < totalPages, totalPages, currentPage: page },
    pageType: 'category',
  };
  if (q.extraFields) data.breadcrumbs = ['Home', meta.name];
  return data;
}

const LONG_PARAGRAPH =
  '<p>Grow your store with <strong>tools merchants love</strong>: set up in minutes,&nbsp;no code needed, ' +
  'and support that answers. Works with every theme &amp; every checkout.</p>\n';

/** Plans at a tick: seeded, then as the script priced, added and removed them. */
function plansOf(state: SimulatorState, rec: AppRecord, app: AppMeta, tick: number): PricingPlan[] {
  let plans = app.pricings.map((p) => ({ ...p }));
  for (const e of state.eventsOf(rec.handle, tick)) {
    if (e.kind === 'price') {
      const plan = plans.find((p) => p.name === e.plan);
      if (plan !== undefined) plan.price = e.price;
      else plans.push({ name: e.plan, price: e.price, description: `The ${e.plan} plan.`, features: [] });
    } else if (e.kind === 'remove-plan') {
      plans = plans.filter((p) => p.name !== e.plan);
    }
  }
  if (isHostile(state, rec.handle)) {
    plans = plans.map((p, i) => (i === 0 ? { ...p, name: `${p.name} <!here> & <b>more</b>` } : p));
  }
  return plans;
}

function pricingSummary(plans: readonly PricingPlan[]): string {
  const free = plans.some((p) => p.price === 'Free');
  const paid = plans.find((p) => p.price !== 'Free');
  return paid === undefined ? 'Free' : free ? 'Free plan available' : `From ${paid.price}`;
}

export function appData(state: SimulatorState, handle: string): Json {
  const rec = listedApp(state, handle);
  const app = state.meta(rec);
  const dev = state.developer(app.developerIndex);
  const q = state.quirkFlags;
  const tick = state.marketTick();
  const { count, average } = state.ratingOf(rec);
  const developer: Json = { name: dev.name, address: dev.address, url: dev.url };
  if (!q.reducedShapes) developer.website = dev.website;
  if (q.extraFields) developer.partnerSince = '2019';
  const cat = CATEGORIES[app.categoryIndex] as CategoryMeta;
  let description = app.description;
  for (const e of state.eventsOf(rec.handle, tick)) {
    if (e.kind === 'listing' && e.description !== undefined) description = e.description;
  }
  if (q.longDescriptions) {
    description = `<h2>${app.title}</h2>\n${description}\n${LONG_PARAGRAPH.repeat(Math.ceil(50_000 / LONG_PARAGRAPH.length))}`;
  }
  const pricings = plansOf(state, rec, app, tick);
  const data: Json = {
    title: titleOf(state, rec, app, tick),
    description,
    logo: app.logo,
    rating: average.toFixed(1),
    reviewCount: count,
    developer,
    languages: app.languages,
    categories: [{ name: cat.name, url: cat.url }],
    worksWith: app.worksWith,
    pricing: pricingSummary(pricings),
    pricings,
    launchedDate: app.launchedDate,
  };
  if (q.extraFields) {
    data.badges = builtFor(state, rec, app, tick) ? ['built-for-platform'] : [];
    data.screenshots = [];
  }
  return data;
}

export function developerData(state: SimulatorState, handle: string): Json {
  const dev = state.developerByHandle(handle);
  if (dev === undefined) throw notFound(`Developer not found: ${handle}`);
  const q = state.quirkFlags;
  const tick = state.marketTick();
  const apps = state
    .appsOfDeveloper(dev.index)
    .filter((rec) => state.isListed(rec))
    .map((rec) => {
      const app = state.meta(rec);
      return {
        name: titleOf(state, rec, app, tick),
        url: app.url,
        category: (CATEGORIES[app.categoryIndex] as CategoryMeta).name,
        rating: listedRating(state, rec),
      };
    });
  if (q.reducedShapes) return { name: dev.name, apps };
  const data: Json = {
    name: dev.name,
    description: dev.description,
    website: dev.website,
    location: dev.location,
    url: dev.url,
    appCount: apps.length,
    apps,
    socialLinks: dev.socialLinks,
  };
  if (q.extraFields) data.verified = true;
  return data;
}

export function categoriesData(): Json {
  return { total: CATEGORIES.length, urls: CATEGORIES.map((c) => ({ url: c.url, handle: c.handle })) };
}

export function developersData(state: SimulatorState): Json {
  const devs = state.developers();
  return { total: devs.length, urls: devs.map((d) => ({ url: d.url, handle: d.handle })) };
}

export function appsData(state: SimulatorState): Json {
  const handles = state.listedHandles();
  return { total: handles.length, apps: handles.map((h) => ({ url: appUrl(h), handle: h })) };
}

// ---------------------------------------------------------------------------------------------------------
// Malformed output

/**
 * A copy of `data` that is valid JSON but breaks the contract in one required field, the way a changed
 * upstream page would: a rating of "five", a count that is a word.
 */
export function withBadField(endpoint: Endpoint, data: Json): Json {
  const copy = structuredClone(data);
  const reviews = copy.reviews;
  if (endpoint === 'reviews' && Array.isArray(reviews) && reviews.length > 0) {
    const target = reviews[Math.min(3, reviews.length - 1)] as Json;
    target.rating = 'five';
  } else if (endpoint === 'reviews') {
    (copy.pagination as Json).hasNextPage = 'no';
  } else if (endpoint === 'app') {
    copy.reviewCount = 'many';
  } else if (endpoint === 'developer') {
    copy.name = 42;
  } else if (endpoint === 'category') {
    copy.appCount = 'lots';
  } else {
    copy.total = 'many';
  }
  return copy;
}

/**
 * The `data` payload of each endpoint, built from the state's cached arrays, with the active quirks
 * applied on the way out (stored data never changes because of a quirk). Unknown or delisted handles
 * throw a 404 SimulatorError.
 */
import { appUrl, CATEGORIES, type CategoryMeta, reviewBucket, type StoredReview } from './data.js';
import { badRequest, notFound } from './errors.js';
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

export function categoryData(state: SimulatorState, handle: string, page: number): Json {
  const { index, meta } = category(handle);
  const members = state.appsInCategory(index);
  const q = state.quirkFlags;
  const apps = pageSlice(members, page, CATEGORY_PAGE_SIZE).map((rec, i) => {
    const app = state.meta(rec);
    const entry: Json = {
      name: app.title,
      url: app.url,
      handle: rec.handle,
      developer: state.developer(app.developerIndex).name,
      rating: round1(state.ratingOf(rec).average),
      isSponsored: app.isSponsored,
      isBuiltForPlatform: app.isBuiltForPlatform,
      position: i + 1,
    };
    if (q.extraFields) entry.reviewCount = state.ratingOf(rec).count;
    return entry;
  });
  const data: Json = {
    name: meta.name,
    description: meta.description,
    appCount: members.length,
    apps,
    pagination: pagination(page, members.length, CATEGORY_PAGE_SIZE),
    pageType: 'category',
  };
  if (q.extraFields) data.breadcrumbs = ['Home', meta.name];
  return data;
}

export function appData(state: SimulatorState, handle: string): Json {
  const rec = listedApp(state, handle);
  const app = state.meta(rec);
  const dev = state.developer(app.developerIndex);
  const q = state.quirkFlags;
  const { count, average } = state.ratingOf(rec);
  const developer: Json = { name: dev.name, address: dev.address, url: dev.url };
  if (!q.reducedShapes) developer.website = dev.website;
  if (q.extraFields) developer.partnerSince = '2019';
  const cat = CATEGORIES[app.categoryIndex] as CategoryMeta;
  const data: Json = {
    title: app.title,
    description: app.description,
    logo: app.logo,
    rating: average.toFixed(1),
    reviewCount: count,
    developer,
    languages: app.languages,
    categories: [{ name: cat.name, url: cat.url }],
    worksWith: app.worksWith,
    pricing: app.pricing,
    pricings: app.pricings,
    launchedDate: app.launchedDate,
  };
  if (q.extraFields) {
    data.badges = app.isBuiltForPlatform ? ['built-for-platform'] : [];
    data.screenshots = [];
  }
  return data;
}

export function developerData(state: SimulatorState, handle: string): Json {
  const dev = state.developerByHandle(handle);
  if (dev === undefined) throw notFound(`Developer not found: ${handle}`);
  const q = state.quirkFlags;
  const apps = state.appsOfDeveloper(dev.index).map((rec) => {
    const app = state.meta(rec);
    return {
      name: app.title,
      url: app.url,
      category: (CATEGORIES[app.categoryIndex] as CategoryMeta).name,
      rating: round1(state.ratingOf(rec).average),
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

import { z } from 'zod';

/**
 * Runtime schemas of the Catalog API's bodies, and the types derived from them. They are tolerant where
 * docs/catalog-api.md says real data varies (absent optional fields, extra fields, two shapes of app and
 * developer detail, null counts, "5 stars" labels) and strict where a wrong value would corrupt what we
 * store (ratings, pagination).
 */

/** A string that may be absent or null upstream; we store '' rather than guessing. */
const text = z
  .string()
  .nullish()
  .transform((value) => value ?? '');

/** review_id is documented as a numeric string; tolerate a number, and '' for absent. */
const reviewId = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((value) => (value === null || value === undefined ? '' : String(value).trim()));

/** Every page holds ten of these: the '' defaults are applied in one transform, not one per field. */
const maybeText = z.string().nullish();

export const reviewSchema = z
  .object({
    app_url: maybeText,
    app_name: maybeText,
    reviewer: maybeText,
    review_created_date: maybeText,
    reviewer_location: maybeText,
    rating: z.number().int().min(1).max(5),
    reviewer_latest_used_date: maybeText,
    review_content: maybeText,
    review_id: reviewId,
  })
  .transform((r) => ({
    reviewId: r.review_id,
    reviewer: r.reviewer ?? '',
    location: r.reviewer_location ?? '',
    rating: r.rating,
    content: r.review_content ?? '',
    /** As sent: ISO 8601 most of the time, the literal "Invalid Date" sometimes. */
    createdDate: r.review_created_date ?? '',
    /** Text such as "2 months using the app", or ''. */
    timeUsingApp: r.reviewer_latest_used_date ?? '',
    appName: r.app_name ?? '',
    appUrl: r.app_url ?? '',
  }));

export type CatalogReview = z.output<typeof reviewSchema>;

const summaryEntry = z.object({
  label: z.union([z.string(), z.number()]).transform(String),
  count: z.number().int().min(0).nullish(),
});

const paginationSchema = z.object({
  hasNextPage: z.boolean(),
  totalPages: z.number().int().min(0),
  currentPage: z.number().int().min(0),
});

export type Pagination = z.output<typeof paginationSchema>;

export const reviewsPageSchema = z
  .object({
    reviews: z.array(reviewSchema),
    summary: z.array(summaryEntry).nullish(),
    pagination: paginationSchema.optional(),
  })
  .transform((page) => ({
    reviews: page.reviews,
    summary: (page.summary ?? []).map((e) => ({ label: e.label, count: e.count ?? null })),
    pagination: page.pagination,
  }));

export type ReviewsPage = z.output<typeof reviewsPageSchema>;
export type SummaryEntry = ReviewsPage['summary'][number];

const developerRef = z.object({
  name: text,
  address: text,
  url: text,
  website: z.string().nullish(),
});

/**
 * A listed rating (category and developer entries): the spec says a number, real pages send strings such
 * as "4.8" (as the app detail does) or text around it. A value that reads as no rating in 0..5 is null:
 * unknown, never 0.
 */
const listedRating = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((value): number | null => {
    if (value === null || value === undefined) return null;
    const n =
      typeof value === 'number' ? value : Number(/\d+(?:[.,]\d+)?/.exec(value)?.[0]?.replace(',', '.'));
    return Number.isFinite(n) && n >= 0 && n <= 5 ? n : null;
  });

/** A position the page shows: an integer, or a numeric string; anything else is unknown (null). */
const position = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((value): number | null => {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof n === 'number' && Number.isInteger(n) ? n : null;
  });

/** The last path segment of a marketplace URL: the handle when an entry leaves it out. */
export function handleFromUrl(url: string): string {
  const path = url.split(/[?#]/)[0] ?? '';
  return path.replace(/\/+$/, '').split('/').pop()?.toLowerCase() ?? '';
}

const categoryRef = z.union([
  z.object({ name: z.string(), url: text }),
  // An older form lists category names only.
  z.string().transform((name) => ({ name, url: '' })),
]);

const pricingPlan = z
  .object({ name: text, price: text, description: text, features: z.array(z.string()).nullish() })
  .transform((plan) => ({ ...plan, features: plan.features ?? [] }));

export type PricingPlan = z.output<typeof pricingPlan>;

export const appDetailSchema = z.object({
  title: z.string(),
  description: text,
  logo: text,
  /** A string such as "4.8" per the spec; a number is tolerated. */
  rating: z
    .union([z.string(), z.number()])
    .nullish()
    .transform((value) => (value === null || value === undefined ? '' : String(value))),
  reviewCount: z.number().int().min(0).nullish(),
  developer: developerRef.nullish(),
  languages: z.array(z.string()).nullish(),
  categories: z.array(categoryRef).nullish(),
  worksWith: z.array(z.string()).nullish(),
  pricing: text,
  pricings: z.array(pricingPlan).nullish(),
  launchedDate: text,
});

export type AppDetail = z.output<typeof appDetailSchema>;

const categoryEntry = z
  .object({
    name: text,
    url: text,
    handle: z.string().nullish(),
    developer: text,
    rating: listedRating,
    isSponsored: z.boolean().nullish(),
    isBuiltForPlatform: z.boolean().nullish(),
    position,
  })
  .transform((entry, ctx) => {
    const handle = (entry.handle ?? '').trim() || handleFromUrl(entry.url);
    if (handle === '') {
      ctx.addIssue({ code: 'custom', path: ['handle'], message: 'no handle and no url to take it from' });
      return z.NEVER;
    }
    return {
      name: entry.name,
      url: entry.url,
      handle,
      developer: entry.developer,
      rating: entry.rating,
      /** An entry not marked as an ad is an organic result. */
      isSponsored: entry.isSponsored === true,
      /** null: the page did not say (not the same as a lost badge). */
      isBuiltForPlatform: entry.isBuiltForPlatform ?? null,
      /** As sent: positions skip, repeat and restart per page, so the page's order is what counts. */
      position: entry.position,
    };
  });

export type CategoryEntry = z.output<typeof categoryEntry>;

export const categoryPageSchema = z.object({
  name: text,
  description: text,
  appCount: z.number().int().min(0).nullish(),
  apps: z.array(categoryEntry),
  pagination: paginationSchema.optional(),
  pageType: z.string().nullish(),
});

export type CategoryPage = z.output<typeof categoryPageSchema>;

const developerApp = z
  .object({ name: text, url: text, handle: z.string().nullish(), category: text, rating: listedRating })
  .transform((app) => ({
    name: app.name,
    url: app.url,
    /** The spec gives no handle: taken from the url (empty when neither is sent). */
    handle: (app.handle ?? '').trim() || handleFromUrl(app.url),
    category: app.category,
    rating: app.rating,
  }));

export type DeveloperApp = z.output<typeof developerApp>;

/** Both forms: the fuller one, and the reduced one with only `name` and `apps`. */
export const developerDetailSchema = z.object({
  name: z.string(),
  description: z.string().nullish(),
  website: z.string().nullish(),
  location: z.string().nullish(),
  url: z.string().nullish(),
  appCount: z.number().int().min(0).nullish(),
  apps: z.array(developerApp),
  socialLinks: z.array(z.object({ platform: z.string(), url: z.string() })).nullish(),
});

export type DeveloperDetail = z.output<typeof developerDetailSchema>;

const link = z.object({ url: z.string(), handle: z.string() });

export const urlListSchema = z.object({ total: z.number().int().min(0), urls: z.array(link) });
export const appListSchema = z.object({ total: z.number().int().min(0), apps: z.array(link) });

export type UrlList = z.output<typeof urlListSchema>;
export type AppList = z.output<typeof appListSchema>;

export const envelopeSchema = z.object({ success: z.literal(true), data: z.unknown() });
export const errorBodySchema = z.object({ error: z.string(), message: z.string().optional() });

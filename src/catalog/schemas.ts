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
  categories: z.array(z.object({ name: z.string(), url: text })).nullish(),
  worksWith: z.array(z.string()).nullish(),
  pricing: text,
  pricings: z
    .array(z.object({ name: text, price: text, description: text, features: z.array(z.string()).nullish() }))
    .nullish(),
  launchedDate: text,
});

export type AppDetail = z.output<typeof appDetailSchema>;

export const categoryPageSchema = z.object({
  name: z.string(),
  description: text,
  appCount: z.number().int().min(0).nullish(),
  apps: z.array(
    z.object({
      name: z.string(),
      url: text,
      handle: z.string(),
      developer: text,
      rating: z.number().nullish(),
      isSponsored: z.boolean().nullish(),
      isBuiltForPlatform: z.boolean().nullish(),
      position: z.number().int().nullish(),
    }),
  ),
  pagination: paginationSchema.optional(),
  pageType: z.string().nullish(),
});

export type CategoryPage = z.output<typeof categoryPageSchema>;

/** Both forms: the fuller one, and the reduced one with only `name` and `apps`. */
export const developerDetailSchema = z.object({
  name: z.string(),
  description: z.string().nullish(),
  website: z.string().nullish(),
  location: z.string().nullish(),
  url: z.string().nullish(),
  appCount: z.number().int().min(0).nullish(),
  apps: z.array(z.object({ name: z.string(), url: text, category: text, rating: z.number().nullish() })),
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

/**
 * Deterministic marketplace data. Everything about an app is a pure function of (seed, handle) plus the
 * few numbers the state hands in (developer count, where its review ids start), so 10,000 apps cost
 * nothing until one is requested, and two simulators with the same seed agree byte for byte.
 */

import { longDate } from '../util/long-date.js';
import { plural } from '../util/plural.js';
import { Rng, unitHash } from './random.js';
import type { WireReview } from './types.js';

export const DAY_MS = 86_400_000;
export const SITE = 'https://apps.platform.example';
const CDN = 'https://cdn.platform.example';

/** Seeded reviews get ids from here up; reviews created at run time count on from a higher base. */
export const SEEDED_ID_BASE = 1_000_000;

export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The API's date form: ISO 8601 with an offset, at midnight UTC (it is derived from a day, not a time). */
export function formatDay(dayMs: number): string {
  return `${new Date(dayMs).toISOString().slice(0, 10)}T00:00:00+00:00`;
}

function formatLongDate(dayMs: number): string {
  return longDate(new Date(dayMs));
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export function titleFromHandle(handle: string): string {
  return handle
    .split('-')
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

export function appUrl(handle: string): string {
  return `${SITE}/${handle}`;
}

// ---------------------------------------------------------------------------------------------------------
// Categories: a fixed, small set, so other code and tests can name them.

export interface CategoryMeta {
  handle: string;
  name: string;
  description: string;
  url: string;
}

const CATEGORY_DEFS: Array<[string, string]> = [
  ['store-design', 'Store design'],
  ['marketing-and-conversion', 'Marketing and conversion'],
  ['orders-and-shipping', 'Orders and shipping'],
  ['customer-support', 'Customer support'],
  ['inventory-management', 'Inventory management'],
  ['finances', 'Finances'],
  ['sales-channels', 'Sales channels'],
  ['productivity', 'Productivity'],
];

export const CATEGORIES: readonly CategoryMeta[] = CATEGORY_DEFS.map(([handle, name]) => ({
  handle,
  name,
  description: `Apps for ${name.toLowerCase()}: hand-picked tools merchants use to run their stores.`,
  url: `${SITE}/categories/${handle}`,
}));

// ---------------------------------------------------------------------------------------------------------
// Developers

export interface DeveloperMeta {
  index: number;
  handle: string;
  name: string;
  description: string;
  website: string;
  location: string;
  address: string;
  url: string;
  socialLinks: Array<{ platform: string; url: string }>;
}

const DEV_FIRST = [
  'Bright',
  'Northwind',
  'Copper',
  'Lumen',
  'Harbor',
  'Atlas',
  'Pine',
  'Vector',
  'Saffron',
  'Kestrel',
  'Obsidian',
  'Juniper',
  'Marble',
  'Cedar',
  'Falcon',
  'Ivory',
  'Nova',
  'Quartz',
  'Raven',
  'Sage',
];
const DEV_SECOND = ['Labs', 'Apps', 'Studio', 'Software', 'Digital', 'Works', 'Commerce', 'Systems', 'HQ'];
const CITIES = [
  'Berlin, Germany',
  'Toronto, Canada',
  'Austin, United States',
  'London, United Kingdom',
  'Melbourne, Australia',
  'Lisbon, Portugal',
  'Bangalore, India',
  'Amsterdam, Netherlands',
  'Dublin, Ireland',
  'Singapore, Singapore',
];
const STREETS = ['Market Street', 'Harbour Road', 'King Street', 'Elm Avenue', 'Canal Street', 'Main Street'];
const SOCIAL = ['twitter', 'linkedin', 'facebook', 'github', 'youtube'];

/** All developers at once: handles are slugs of seeded names, made unique in index order. */
export function generateDevelopers(seed: number, count: number): DeveloperMeta[] {
  const used = new Map<string, number>();
  const out: DeveloperMeta[] = [];
  for (let index = 0; index < count; index++) {
    const rng = Rng.from(seed, 'developer', index);
    const name = `${rng.pick(DEV_FIRST)} ${rng.pick(DEV_SECOND)}`;
    const base = slugify(name);
    const seen = (used.get(base) ?? 0) + 1;
    used.set(base, seen);
    const handle = seen === 1 ? base : `${base}-${seen}`;
    const city = rng.pick(CITIES);
    out.push({
      index,
      handle,
      name: seen === 1 ? name : `${name} ${seen}`,
      description: `${name} builds apps that help independent merchants sell more with less busywork.`,
      website: `https://www.${handle}.example`,
      location: city,
      address: `${rng.int(1, 240)} ${rng.pick(STREETS)}, ${city}`,
      url: `${SITE}/partners/${handle}`,
      socialLinks: rng.sample(SOCIAL, rng.int(0, 3)).map((platform) => ({
        platform,
        url: `https://${platform}.example/${handle}`,
      })),
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Apps

export interface PricingPlan {
  name: string;
  price: string;
  description: string;
  features: string[];
}

export interface AppMeta {
  handle: string;
  title: string;
  url: string;
  description: string;
  logo: string;
  categoryIndex: number;
  developerIndex: number;
  languages: string[];
  worksWith: string[];
  pricing: string;
  pricings: PricingPlan[];
  launchedDate: string;
  isSponsored: boolean;
  isBuiltForPlatform: boolean;
  /** Category listing order. */
  rankKey: number;
  /** 0 good, 1 average, 2 poor: shapes the rating distribution of its reviews. */
  quality: number;
}

const TITLE_FIRST = [
  'Swift',
  'Bright',
  'Bolt',
  'Acme',
  'Nimbus',
  'Pixel',
  'Rocket',
  'Harbor',
  'Lumen',
  'Sprout',
  'Atlas',
  'Echo',
  'Vivid',
  'Cobalt',
  'Summit',
  'Orbit',
  'Quill',
  'Tidal',
  'Zen',
  'Kite',
];
const TITLE_SECOND = [
  'Reviews',
  'Upsell',
  'Inventory',
  'Shipping',
  'Loyalty',
  'Bundles',
  'Forms',
  'Chat',
  'Wishlist',
  'SEO',
  'Pop-ups',
  'Subscriptions',
  'Invoices',
  'Translate',
  'Labels',
  'Analytics',
  'Email Marketing',
  'Search',
  'Backups',
  'Countdown',
];
const TITLE_SUFFIX = ['Pro', 'Plus', 'Hub', 'Kit', 'Studio', 'Suite'];
const LANGUAGES = ['French', 'German', 'Spanish', 'Japanese', 'Portuguese', 'Italian', 'Dutch'];
const WORKS_WITH = ['Checkout', 'Point of Sale', 'Online Store', 'Flow', 'Customer accounts', 'Email'];
const FEATURES = [
  'Unlimited products',
  'Priority support',
  'Custom branding',
  'Analytics dashboard',
  'Multi-language',
  'API access',
  'Scheduled exports',
  'Up to 500 orders/month',
];
const PAID_PLANS: Array<[string, string]> = [
  ['Basic', '$9.99/month'],
  ['Growth', '$29/month'],
  ['Pro', '$49/month'],
  ['Enterprise', '$199/month'],
];

/** Where an app sits in the catalog, from cheap hashes: building a category's member list needs no meta. */
export function appPlacement(
  seed: number,
  handle: string,
  developerCount: number,
): { categoryIndex: number; developerIndex: number; rankKey: number } {
  return {
    categoryIndex: Math.floor(unitHash(seed, 'category-of', handle) * CATEGORIES.length),
    developerIndex: Math.floor(unitHash(seed, 'developer-of', handle) * Math.max(1, developerCount)),
    rankKey: unitHash(seed, 'rank', handle),
  };
}

export function generateAppMeta(
  seed: number,
  handle: string,
  opts: { title?: string; explicit: boolean; developerCount: number; startDay: number },
): AppMeta {
  const rng = Rng.from(seed, 'app', handle);
  const seededTitle = `${rng.pick(TITLE_FIRST)} ${rng.pick(TITLE_SECOND)}${
    rng.chance(0.3) ? ` ${rng.pick(TITLE_SUFFIX)}` : ''
  }`;
  const title = opts.title ?? (opts.explicit ? titleFromHandle(handle) : seededTitle);
  const placement = appPlacement(seed, handle, opts.developerCount);
  const category = CATEGORIES[placement.categoryIndex] as CategoryMeta;

  const hasFree = rng.chance(0.5);
  const plans: PricingPlan[] = [];
  if (hasFree) {
    plans.push({
      name: 'Free',
      price: 'Free',
      description: 'Everything you need to get started.',
      features: rng.sample(FEATURES, 2),
    });
  }
  for (const [name, price] of rng.sample(PAID_PLANS, rng.int(hasFree ? 0 : 1, 3))) {
    plans.push({
      name,
      price,
      description: `The ${name} plan.`,
      features: rng.sample(FEATURES, rng.int(2, 4)),
    });
  }
  const firstPaid = plans.find((p) => p.price !== 'Free');
  const pricing =
    firstPaid === undefined ? 'Free' : hasFree ? 'Free plan available' : `From ${firstPaid.price}`;

  return {
    handle,
    title,
    url: appUrl(handle),
    description: `${title} helps merchants with ${category.name.toLowerCase()}. Set up in minutes, no code needed.`,
    logo: `${CDN}/app-logos/${handle}.png`,
    ...placement,
    languages: ['English', ...rng.sample(LANGUAGES, rng.int(0, 3))],
    worksWith: rng.sample(WORKS_WITH, rng.int(0, 3)),
    pricing,
    pricings: plans,
    launchedDate: formatLongDate(opts.startDay - rng.int(120, 3000) * DAY_MS),
    isSponsored: rng.chance(0.1),
    isBuiltForPlatform: rng.chance(0.2),
    quality: rng.weighted([5, 4, 1]),
  };
}

/** About 1 app in 20 has no reviews at all. */
export function seededReviewCount(seed: number, handle: string, max: number): number {
  if (max <= 0) return 0;
  const rng = Rng.from(seed, 'review-count', handle);
  return rng.chance(0.05) ? 0 : rng.int(1, max);
}

// ---------------------------------------------------------------------------------------------------------
// Reviews

/** A review as the state keeps it: the wire fields plus what ordering and archiving need. */
export interface StoredReview {
  wire: WireReview;
  /** Day of review_created_date, the primary newest-first key. */
  dayMs: number;
  /** Tie-break inside a day (higher = newer); bumped on edit so an edited review goes to the top. */
  seq: number;
  /** Key of the default ("relevance") order, unrelated to time. */
  rel: number;
  archived: boolean;
}

/** Rating weights for 1..5 stars by app quality: skewed to 4-5, but real 1-2s everywhere. */
const RATING_WEIGHTS = [
  [3, 2, 5, 20, 70],
  [8, 6, 10, 26, 50],
  [25, 12, 13, 20, 30],
];

const STORE_FIRST = [
  'Blue Fern',
  'Northwind',
  'Copper Kettle',
  'Urban Thread',
  'Maple Leaf',
  'Golden Hour',
  'Little Sprout',
  'Salt Air',
  'Wild Oak',
  'Red Door',
  'Silver Spoon',
  'Lucky Cat',
  'Paper Moon',
  'Iron Anchor',
  'Velvet Fox',
];
const STORE_SECOND = [
  'Boutique',
  'Co.',
  'Store',
  'Supply',
  'Goods',
  'Studio',
  'Outfitters',
  'Shop',
  'Market',
];
/** Reviewer names that break naive Slack/HTML rendering: they must come out escaped. */
export const TRICKY_REVIEWERS = [
  '<!channel>',
  '<https://evil.example|click>',
  'Bread & Butter',
  '*bold* deals',
  '<!here> Outlet',
  'Ben\'s <b>Bikes</b> & "Boards"',
  '_tilt_ ~strike~ shop',
  '<@U024BE7LH>',
];
const COUNTRIES = [
  'United States',
  'Canada',
  'United Kingdom',
  'Australia',
  'Germany',
  'France',
  'Netherlands',
  'India',
  'Brazil',
  'Spain',
  'Italy',
  'Japan',
  'New Zealand',
  'Ireland',
  'Sweden',
  'South Africa',
  'Mexico',
  'Singapore',
];

const LOW_TOPICS: string[][] = [
  [
    'They charged me twice this month and nobody will refund it.',
    'I was billed after uninstalling and I want a refund.',
    'The price went up without notice and I got charged $49.',
    'Billing is a mess, hidden fees everywhere.',
    'Still waiting on my refund after three weeks.',
  ],
  [
    'The app crashes every time I open the settings page.',
    'Full of bugs since the last update.',
    'It broke my theme and checkout stopped working.',
    'Constant errors, the widget never loads.',
    'Slowed my store down to a crawl.',
  ],
  [
    'Support never answered my emails.',
    'Waited five days for a reply from support, still nothing.',
    'Support closed my ticket without fixing anything.',
    'No one answers the live chat.',
  ],
  [
    'Lost all my product data after the sync.',
    'It deleted my imported reviews and there is no backup.',
    'Half of my orders disappeared from the dashboard.',
    'My customer list was wiped during the migration.',
  ],
  [
    'Uninstalling and switching to a competitor.',
    'Moving to another app, this one is not worth it.',
    'Removed it from my store today.',
    'Switched to a different app that actually works.',
  ],
];
const NEUTRAL = [
  'Does the job but setup was confusing.',
  'Decent app, a few features missing.',
  'Works okay, support is a bit slow.',
  'Good idea, needs polish.',
  'Fine for the price.',
  'Had some bugs at first, mostly fixed now.',
];
const POSITIVE = [
  'Great app, easy to set up.',
  'Support was quick and helpful.',
  'Our conversions went up within a week.',
  'Exactly what we needed.',
  'Love it! Highly recommend.',
  'The team fixed my issue in minutes.',
  'Simple, fast and reliable.',
  'Best app in this category, and we tried five.',
  'Saves us hours every week.',
];
/** Content that must be escaped by anything that renders it. */
const TRICKY_CONTENT = [
  '<!channel> this app charged me twice!',
  'Click <https://evil.example|here> to get your refund',
  'Tom & Jerry say *this* is _terrible_',
  "<script>alert('x')</script> showed up on my storefront",
  'Rating > 1 star is too generous & support < useless',
  '<!here> <@U024BE7LH> please call me back',
];

function usedFor(rng: Rng): string {
  switch (rng.int(0, 7)) {
    case 0:
      return '';
    case 1:
      return `About ${plural(rng.int(1, 23), 'hour')} using the app`;
    case 2:
      return `${plural(rng.int(1, 6), 'day')} using the app`;
    case 3:
      return `${plural(rng.int(1, 3), 'week')} using the app`;
    case 4:
    case 5:
      return `${plural(rng.int(1, 11), 'month')} using the app`;
    case 6:
      return 'About 1 year using the app';
    default: {
      const years = rng.int(1, 3);
      return `Over ${plural(years, 'year')} using the app`;
    }
  }
}

function reviewerName(rng: Rng): string {
  if (rng.chance(0.04)) return rng.pick(TRICKY_REVIEWERS);
  return `${rng.pick(STORE_FIRST)} ${rng.pick(STORE_SECOND)}`;
}

function contentFor(rng: Rng, rating: number): string {
  if (rng.chance(rating >= 4 ? 0.12 : 0.05)) return '';
  const long = rng.chance(0.04);
  const count = long ? rng.int(10, 18) : rng.int(1, 3);
  const parts: string[] = [];
  if (rng.chance(0.03)) parts.push(rng.pick(TRICKY_CONTENT));
  const mainTopic = rng.pick(LOW_TOPICS);
  while (parts.length < count) {
    if (rating <= 2) parts.push(rng.chance(0.6) ? rng.pick(mainTopic) : rng.pick(rng.pick(LOW_TOPICS)));
    else if (rating === 3) parts.push(rng.chance(0.7) ? rng.pick(NEUTRAL) : rng.pick(rng.pick(LOW_TOPICS)));
    else parts.push(rng.pick(POSITIVE));
  }
  return parts.join(' ');
}

export function seededRating(rng: Rng, quality: number): number {
  return rng.weighted(RATING_WEIGHTS[quality] ?? (RATING_WEIGHTS[1] as number[])) + 1;
}

/** One review; fields in `given` win over the seeded ones. */
export function makeReview(
  rng: Rng,
  app: { handle: string; title: string },
  review: { dayMs: number; id: string; rating: number },
  given: Partial<WireReview> = {},
): WireReview {
  const rating = given.rating ?? review.rating;
  return {
    app_url: given.app_url ?? appUrl(app.handle),
    app_name: given.app_name ?? app.title,
    reviewer: given.reviewer ?? reviewerName(rng),
    review_created_date: given.review_created_date ?? formatDay(review.dayMs),
    reviewer_location: given.reviewer_location ?? rng.pick(COUNTRIES),
    rating,
    reviewer_latest_used_date: given.reviewer_latest_used_date ?? usedFor(rng),
    review_content: given.review_content ?? contentFor(rng, rating),
    review_id: given.review_id ?? review.id,
  };
}

/**
 * The seeded history of one app, oldest first: `count` reviews spread backward from the day before
 * `startDay` over up to about two years, denser towards the present as real listings are.
 */
export function generateHistory(
  seed: number,
  app: { handle: string; title: string; quality: number },
  count: number,
  startDay: number,
  idOf: (k: number) => string,
): StoredReview[] {
  const rng = Rng.from(seed, 'reviews', app.handle);
  const span = rng.int(30, 730);
  const offsets: number[] = [];
  for (let k = 0; k < count; k++) {
    // History ends the day before the start, so every review dated "today" is one that arrived since.
    offsets.push(1 + Math.floor((span - 1) * rng.next() ** 1.5));
  }
  offsets.sort((a, b) => b - a);
  const out: StoredReview[] = [];
  for (let k = 0; k < count; k++) {
    const dayMs = startDay - (offsets[k] as number) * DAY_MS;
    const wire = makeReview(rng, app, { dayMs, id: idOf(k), rating: seededRating(rng, app.quality) });
    out.push({ wire, dayMs, seq: k, rel: rng.next(), archived: false });
  }
  return out;
}

/** A stable pseudo-random key for a review, for quirks that hit "some" reviews. */
export function reviewBucket(seed: number, id: string): number {
  const n = Number(id);
  return id !== '' && Number.isSafeInteger(n) ? n : Math.floor(unitHash(seed, 'bucket', id) * 1e9);
}

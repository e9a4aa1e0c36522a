/**
 * Listings (endpoint 3) normalised, hashed and compared field by field. A new listing version is stored
 * only when the normalised listing's hash moves, so whitespace, markup, the order of plans or of a set,
 * and the rating and review count (the polls track those) never make a version.
 */
import { createHash } from 'node:crypto';
import type { AppDetail } from '../catalog/schemas.js';
import { type DiffHunk, diffSentences, normalizeDescription, sentencesOf } from './description.js';
import type { ListingField } from './fields.js';
import { comparePrices, normalizeSpace, parsePrice } from './price.js';

export interface NormalizedPlan {
  /** The plan's name as shown; plans are matched by `key`, its case- and space-insensitive form. */
  name: string;
  key: string;
  price: string;
  features: string[];
}

export interface NormalizedListing {
  title: string;
  /** Plain lines (description.ts). */
  description: string;
  /** The one-line pricing summary ("Free plan available", "From $9.99/month"). */
  pricing: string;
  /** Sorted by key. */
  plans: NormalizedPlan[];
  /** Sorted, each once. */
  categories: string[];
  languages: string[];
  worksWith: string[];
  developer: string;
}

const foldKey = (text: string): string => normalizeSpace(text).toLowerCase();

/** Case-insensitive set: the first spelling met of each value, sorted. */
function normalizedSet(values: readonly string[]): string[] {
  const byKey = new Map<string, string>();
  for (const value of values) {
    const text = normalizeSpace(value);
    if (text !== '' && !byKey.has(text.toLowerCase())) byKey.set(text.toLowerCase(), text);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

export function normalizeListing(detail: AppDetail): NormalizedListing {
  const plans = new Map<string, NormalizedPlan>();
  for (const plan of detail.pricings ?? []) {
    const name = normalizeSpace(plan.name);
    let key = foldKey(name);
    // Two plans of one name (it happens on hand-edited listings) stay two plans.
    for (let n = 2; plans.has(key); n++) key = `${foldKey(name)} (${n})`;
    plans.set(key, { name, key, price: normalizeSpace(plan.price), features: normalizedSet(plan.features) });
  }
  return {
    title: detail.title,
    description: normalizeDescription(detail.description),
    pricing: normalizeSpace(detail.pricing),
    plans: [...plans.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    categories: normalizedSet((detail.categories ?? []).map((c) => c.name)),
    languages: normalizedSet(detail.languages ?? []),
    worksWith: normalizedSet(detail.worksWith ?? []),
    developer: normalizeSpace(detail.developer?.name ?? ''),
  };
}

/**
 * sha256 of the normalised listing as the diff compares it: sets, plan names and features without case,
 * prices by what they parse to. Two listings that diff to nothing hash alike, so no version is stored
 * for a change the diff would not show.
 */
export function listingHash(listing: NormalizedListing): string {
  const lower = (values: readonly string[]) => values.map((v) => v.toLowerCase()).sort();
  const canonical = JSON.stringify([
    listing.title,
    listing.description,
    listing.pricing.toLowerCase(),
    listing.plans.map((p) => [p.key, priceKey(p.price), lower(p.features)]),
    lower(listing.categories),
    lower(listing.languages),
    lower(listing.worksWith),
    listing.developer.toLowerCase(),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

function priceKey(price: string): unknown {
  const parsed = parsePrice(price);
  return parsed.kind === 'text'
    ? parsed.text.toLowerCase()
    : [parsed.amount?.value, parsed.amount?.currency, parsed.amount?.period, parsed.free, parsed.trialDays];
}

interface ChangeBase {
  field: ListingField;
  /** False when `listing.ignore` names the field, or the change is too small to matter (a minor price move). */
  alerts: boolean;
}

export type ListingChange = ChangeBase &
  (
    | { kind: 'title'; from: string; to: string }
    | { kind: 'description'; hunks: DiffHunk[] }
    | { kind: 'pricing-summary'; from: string; to: string }
    | { kind: 'plan-added'; plan: string; price: string }
    | { kind: 'plan-removed'; plan: string; price: string }
    | { kind: 'price-up' | 'price-down'; plan: string; from: string; to: string; minor: boolean }
    | {
        kind: 'trial';
        plan: string;
        from: string;
        to: string;
        fromDays: number | null;
        toDays: number | null;
      }
    | { kind: 'price-changed'; plan: string; from: string; to: string }
    | { kind: 'plan-features'; plan: string; added: string[]; removed: string[] }
    | { kind: 'set'; added: string[]; removed: string[] }
    | { kind: 'developer'; from: string; to: string }
    /** The Built-for badge, as category pages show it (entrants.ts, badgeChanges): not in the hash. */
    | { kind: 'badge'; from: boolean; to: boolean }
  );

/** The fields whose changes alert unless ignored: what a competitor does to win customers. */
const ALERTING: ReadonlySet<ListingField> = new Set(['pricing', 'categories', 'badge']);

function setDiff(
  before: readonly string[],
  after: readonly string[],
): { added: string[]; removed: string[] } {
  const was = new Set(before.map((v) => v.toLowerCase()));
  const is = new Set(after.map((v) => v.toLowerCase()));
  return {
    added: after.filter((v) => !was.has(v.toLowerCase())),
    removed: before.filter((v) => !is.has(v.toLowerCase())),
  };
}

/**
 * What changed from one normalised listing to the next, field by field: plans by name (added, removed,
 * price up or down, trial, features), sets as added and removed, the title exactly, the description as
 * the sentences that changed. `ignore` fields are still reported, with `alerts: false`.
 */
export function diffListings(
  before: NormalizedListing,
  after: NormalizedListing,
  options: { ignore?: readonly ListingField[] } = {},
): ListingChange[] {
  const ignored = new Set(options.ignore ?? []);
  const alerts = (field: ListingField): boolean => ALERTING.has(field) && !ignored.has(field);
  const changes: ListingChange[] = [];
  if (before.title !== after.title) {
    changes.push({
      field: 'title',
      alerts: alerts('title'),
      kind: 'title',
      from: before.title,
      to: after.title,
    });
  }
  if (before.description !== after.description) {
    const hunks = diffSentences(sentencesOf(before.description), sentencesOf(after.description));
    if (hunks.length > 0)
      changes.push({ field: 'description', alerts: alerts('description'), kind: 'description', hunks });
  }
  if (before.pricing.toLowerCase() !== after.pricing.toLowerCase()) {
    changes.push({
      field: 'pricing',
      // The summary follows the plans; the plans' own changes say what happened.
      alerts: false,
      kind: 'pricing-summary',
      from: before.pricing,
      to: after.pricing,
    });
  }
  changes.push(...planChanges(before.plans, after.plans, alerts));
  for (const field of ['categories', 'languages', 'worksWith'] as const) {
    const { added, removed } = setDiff(before[field], after[field]);
    if (added.length > 0 || removed.length > 0)
      changes.push({ field, alerts: alerts(field), kind: 'set', added, removed });
  }
  if (before.developer.toLowerCase() !== after.developer.toLowerCase()) {
    changes.push({
      field: 'developer',
      alerts: alerts('developer'),
      kind: 'developer',
      from: before.developer,
      to: after.developer,
    });
  }
  return changes;
}

function planChanges(
  before: readonly NormalizedPlan[],
  after: readonly NormalizedPlan[],
  alerts: (field: ListingField) => boolean,
): ListingChange[] {
  const was = new Map(before.map((p) => [p.key, p]));
  const is = new Map(after.map((p) => [p.key, p]));
  const out: ListingChange[] = [];
  for (const plan of before) {
    if (!is.has(plan.key)) {
      out.push({
        field: 'pricing',
        alerts: alerts('pricing'),
        kind: 'plan-removed',
        plan: plan.name,
        price: plan.price,
      });
    }
  }
  for (const plan of after) {
    const old = was.get(plan.key);
    if (old === undefined) {
      out.push({
        field: 'pricing',
        alerts: alerts('pricing'),
        kind: 'plan-added',
        plan: plan.name,
        price: plan.price,
      });
      continue;
    }
    const move = comparePrices(parsePrice(old.price), parsePrice(plan.price));
    const base = { plan: plan.name, from: old.price, to: plan.price };
    if (move.kind === 'up' || move.kind === 'down') {
      out.push({
        field: 'pricing',
        alerts: alerts('pricing') && !move.minor,
        kind: move.kind === 'up' ? 'price-up' : 'price-down',
        ...base,
        minor: move.minor,
      });
    } else if (move.kind === 'trial') {
      out.push({
        field: 'pricing',
        alerts: alerts('pricing'),
        kind: 'trial',
        ...base,
        fromDays: move.from,
        toDays: move.to,
      });
    } else if (move.kind === 'changed') {
      out.push({ field: 'pricing', alerts: alerts('pricing'), kind: 'price-changed', ...base });
    }
    const features = setDiff(old.features, plan.features);
    if (features.added.length > 0 || features.removed.length > 0) {
      out.push({
        field: 'features',
        alerts: alerts('features'),
        kind: 'plan-features',
        plan: plan.name,
        ...features,
      });
    }
  }
  return out;
}

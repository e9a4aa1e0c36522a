/**
 * A listing change (listing.ts, ListingChange) described once: `describeListingChange` says what a change
 * is as a short list of parts (our words, a plan's name, a value before and after, values added and
 * removed), and two formatters make it text (`describeChange`: the alerts, the rank explanations, the
 * market overview, the CLI and the digest) or markup (the app page, web/pages/listing-changes.ts). A new
 * kind of change is one case here, and `changeTone` says how the views colour it.
 *
 * Quoted values come from the marketplace and are untrusted: the text formatter puts them on one line and
 * cuts them short, and every renderer escapes the result for where it goes (the HTML one escapes itself).
 */
import type { DiffHunk } from './description.js';
import type { ListingChange } from './listing.js';

/** Quoted titles, plan names and prices are cut at this many characters. */
const MAX_QUOTED = 80;
/** A list of added or removed values names this many, then says how many more. */
const MAX_LISTED = 6;

/** A marketplace string on one line, at most MAX_QUOTED characters, in quotes. */
export function quoted(text: unknown, max = MAX_QUOTED): string {
  const line = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...line];
  return `"${chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : line}"`;
}

/** The value of a price or text, unquoted when short and plain ("Free", "$19.99/month"). */
function value(text: unknown): string {
  const line = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return /^[\w$€£.,/ +-]{1,40}$/.test(line) ? line : quoted(line);
}

const FIELD_LABELS: Record<string, string> = {
  title: 'title',
  description: 'description',
  pricing: 'pricing',
  features: 'plan features',
  categories: 'categories',
  languages: 'languages',
  worksWith: 'works with',
  developer: 'developer',
  badge: 'Built-for badge',
};

/** A field's name as people read it ("works with" for worksWith); unknown ones as they are. */
export function fieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? field;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What kind of move a change is, for the views to colour it: a price up or down, a plan in or out. */
export type ChangeTone = 'up' | 'down' | 'added' | 'removed' | 'changed';

/** The tone of a change: price up or down, a plan added or removed; anything else "changed". */
export function changeTone(change: Pick<ListingChange, 'kind'>): ChangeTone {
  switch (change.kind) {
    case 'price-up':
      return 'up';
    case 'price-down':
      return 'down';
    case 'plan-added':
      return 'added';
    case 'plan-removed':
      return 'removed';
    default:
      return 'changed';
  }
}

/**
 * One part of a change's description. Strings are our words; the others carry marketplace text, each
 * formatter showing it its way (text: quoted or plain; HTML: <strong>, <del>, <ins>).
 */
export type ChangePart =
  | string
  /** A plan's name. */
  | { name: unknown }
  /** A value before and after: a title or a name (`quote`), or a price. */
  | { from: unknown; to: unknown; quote?: true }
  /** One value that came or went. */
  | { value: unknown; went: 'in' | 'out' }
  /** Values added to and removed from a list. */
  | { added: readonly unknown[]; removed: readonly unknown[] }
  /** The sentences of a description that changed. */
  | { hunks: readonly DiffHunk[] }
  /** A remark in passing. */
  | { note: string };

/**
 * What a change says, as parts. Stored changes are read back as written, possibly by an older or newer
 * version of the program: a kind this version does not know is named by its field.
 */
export function describeListingChange(change: ListingChange): ChangePart[] {
  switch (change.kind) {
    case 'title':
      return ['Title: ', { from: change.from, to: change.to, quote: true }];
    case 'description':
      return ['Description', { hunks: change.hunks ?? [] }];
    case 'pricing-summary':
      return ['Pricing summary: ', { from: change.from, to: change.to, quote: true }];
    case 'plan-added':
      return ['Plan added: ', { name: change.plan }, ' (', { value: change.price, went: 'in' }, ')'];
    case 'plan-removed':
      return ['Plan removed: ', { name: change.plan }, ' (was ', { value: change.price, went: 'out' }, ')'];
    case 'price-up':
    case 'price-down':
      return [
        { name: change.plan },
        `: price ${change.kind === 'price-up' ? 'up' : 'down'} `,
        { from: change.from, to: change.to },
        ...(change.minor ? [{ note: 'minor: recorded, not alerted' }] : []),
      ];
    case 'trial':
      return [{ name: change.plan }, ': trial ', { from: change.from, to: change.to }];
    case 'price-changed':
      return [{ name: change.plan }, ': price ', { from: change.from, to: change.to }];
    case 'plan-features':
      return [
        { name: change.plan },
        ' features: ',
        { added: change.added ?? [], removed: change.removed ?? [] },
      ];
    case 'set':
      return [
        `${capitalized(fieldLabel(change.field))}: `,
        { added: change.added ?? [], removed: change.removed ?? [] },
      ];
    case 'developer':
      return ['Developer: ', { from: change.from, to: change.to, quote: true }];
    case 'badge':
      return [`Built-for badge ${change.to ? 'gained' : 'lost'}`];
    default:
      // Every kind this version writes has its case above (`never` here); stored ones may not.
      return unknownChange(change satisfies never);
  }
}

/** A badge change as older versions stored it, or a kind this version does not know. */
function unknownChange(change: unknown): ChangePart[] {
  const other = change as { field?: unknown; kind?: unknown; builtFor?: unknown };
  if (other.field === 'badge') {
    const gained = other.kind === 'gained' || other.builtFor === true;
    const lost = other.kind === 'lost' || other.builtFor === false;
    if (gained || lost) return [`Built-for badge ${gained ? 'gained' : 'lost'}`];
  }
  return [`${capitalized(fieldLabel(String(other.field ?? 'listing')))} changed`];
}

function listText(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map((v) => quoted(v, 40));
  const more = values.length - shown.length;
  return `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

function partText(part: ChangePart): string {
  if (typeof part === 'string') return part;
  if ('name' in part) return quoted(part.name);
  if ('from' in part) {
    const say = part.quote ? (v: unknown) => quoted(v) : value;
    return `${say(part.from)} → ${say(part.to)}`;
  }
  if ('went' in part) return value(part.value);
  if ('added' in part) {
    return [
      ...(part.added.length > 0 ? [`added ${listText(part.added)}`] : []),
      ...(part.removed.length > 0 ? [`removed ${listText(part.removed)}`] : []),
    ].join('; ');
  }
  if ('hunks' in part) {
    const added = part.hunks.reduce((n, h) => n + (h.added?.length ?? 0), 0);
    const removed = part.hunks.reduce((n, h) => n + (h.removed?.length ?? 0), 0);
    const counts = [
      ...(added > 0 ? [`${added} sentence${added === 1 ? '' : 's'} added`] : []),
      ...(removed > 0 ? [`${removed} removed`] : []),
    ];
    return counts.length > 0 ? `: ${counts.join(', ')}` : ' changed';
  }
  return ` (${part.note})`;
}

/** One line of plain, unescaped text saying what changed: `"Pro": price down $29/month → $19/month`. */
export function describeChange(change: ListingChange): string {
  return describeListingChange(change).map(partText).join('');
}

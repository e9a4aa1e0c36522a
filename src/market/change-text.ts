/**
 * A listing change (listing.ts, ListingChange) in one line of plain text, for the market overview, the
 * CLI and the digest: `"Pro" price down: $29.99/month → $19.99/month`. Quoted values come from the
 * marketplace and are untrusted: they are put on one line and cut short here, and every renderer escapes
 * the result for where it goes.
 */
import type { ListingChange } from './listing.js';

/** Quoted titles, plan names and prices are cut at this many characters. */
const MAX_QUOTED = 60;

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

function list(values: readonly unknown[] | undefined): string {
  return (values ?? []).map((v) => quoted(v, 40)).join(', ');
}

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
 * One line saying what changed. Stored changes are read back as written, possibly by an older or newer
 * version of the program: a kind this version does not know is named by its field.
 */
export function describeChange(change: ListingChange): string {
  switch (change.kind) {
    case 'title':
      return `title changed from ${quoted(change.from)} to ${quoted(change.to)}`;
    case 'description': {
      const hunks = change.hunks ?? [];
      const added = hunks.reduce((n, h) => n + (h.added?.length ?? 0), 0);
      const removed = hunks.reduce((n, h) => n + (h.removed?.length ?? 0), 0);
      const parts = [
        ...(added > 0 ? [`${added} sentence${added === 1 ? '' : 's'} added`] : []),
        ...(removed > 0 ? [`${removed} removed`] : []),
      ];
      return `description changed${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
    }
    case 'pricing-summary':
      return `pricing summary changed from ${quoted(change.from)} to ${quoted(change.to)}`;
    case 'plan-added':
      return `plan ${quoted(change.plan)} added (${value(change.price)})`;
    case 'plan-removed':
      return `plan ${quoted(change.plan)} removed (was ${value(change.price)})`;
    case 'price-up':
    case 'price-down':
      return `${quoted(change.plan)} price ${change.kind === 'price-up' ? 'up' : 'down'}: ${value(change.from)} → ${value(change.to)}${change.minor ? ' (minor)' : ''}`;
    case 'trial':
      return `${quoted(change.plan)} trial: ${value(change.from)} → ${value(change.to)}`;
    case 'price-changed':
      return `${quoted(change.plan)} price changed: ${value(change.from)} → ${value(change.to)}`;
    case 'plan-features': {
      const parts = [
        ...(change.added?.length ? [`added ${list(change.added)}`] : []),
        ...(change.removed?.length ? [`removed ${list(change.removed)}`] : []),
      ];
      return `${quoted(change.plan)} features: ${parts.join('; ')}`;
    }
    case 'set': {
      const parts = [
        ...(change.added?.length ? [`added ${list(change.added)}`] : []),
        ...(change.removed?.length ? [`removed ${list(change.removed)}`] : []),
      ];
      return `${fieldLabel(change.field)}: ${parts.join('; ')}`;
    }
    case 'developer':
      return `developer changed from ${quoted(change.from)} to ${quoted(change.to)}`;
    default: {
      const other = change as { field?: unknown; kind?: unknown; builtFor?: unknown };
      if (other.field === 'badge') {
        const gained = other.kind === 'gained' || other.builtFor === true;
        const lost = other.kind === 'lost' || other.builtFor === false;
        if (gained || lost) return `Built-for badge ${gained ? 'gained' : 'lost'}`;
      }
      return `${fieldLabel(String(other.field ?? 'listing'))} changed`;
    }
  }
}

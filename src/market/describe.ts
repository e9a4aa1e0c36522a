/**
 * One line of plain (unescaped) text per listing change: what rank explanations, alerts and timelines say
 * about it. Every string in it may come from the marketplace: the caller escapes it where it renders it.
 */
import type { ListingChange } from './listing.js';

/** Keeps a quoted value short: a 50 KB description or a hostile title must not become the message. */
function short(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function list(values: readonly string[], max = 4): string {
  const shown = values.slice(0, max).map((v) => short(v, 40));
  return values.length > max ? `${shown.join(', ')} and ${values.length - max} more` : shown.join(', ');
}

const SET_NAMES: Record<string, string> = {
  categories: 'categories',
  languages: 'languages',
  worksWith: 'works with',
};

export function describeListingChange(change: ListingChange): string {
  switch (change.kind) {
    case 'title':
      return `renamed from "${short(change.from)}" to "${short(change.to)}"`;
    case 'description': {
      const sentences = change.hunks.reduce((n, h) => n + h.added.length + h.removed.length, 0);
      return `description changed (${sentences} ${sentences === 1 ? 'sentence' : 'sentences'})`;
    }
    case 'pricing-summary':
      return `pricing summary "${short(change.from)}" → "${short(change.to)}"`;
    case 'plan-added':
      return `new plan "${short(change.plan)}" at ${short(change.price, 40)}`;
    case 'plan-removed':
      return `plan "${short(change.plan)}" (${short(change.price, 40)}) removed`;
    case 'price-up':
    case 'price-down':
      return `${change.kind === 'price-down' ? 'price cut' : 'price raised'} on "${short(change.plan)}": ${short(change.from, 40)} → ${short(change.to, 40)}`;
    case 'trial':
      return `trial on "${short(change.plan)}": ${short(change.from, 40)} → ${short(change.to, 40)}`;
    case 'price-changed':
      return `price of "${short(change.plan)}" changed: ${short(change.from, 40)} → ${short(change.to, 40)}`;
    case 'plan-features': {
      const parts = [
        change.added.length > 0 ? `added ${list(change.added)}` : '',
        change.removed.length > 0 ? `removed ${list(change.removed)}` : '',
      ].filter(Boolean);
      return `features of "${short(change.plan)}": ${parts.join('; ')}`;
    }
    case 'set': {
      const name = SET_NAMES[change.field] ?? change.field;
      const parts = [
        change.added.length > 0 ? `+ ${list(change.added)}` : '',
        change.removed.length > 0 ? `− ${list(change.removed)}` : '',
      ].filter(Boolean);
      return `${name}: ${parts.join(' ')}`;
    }
    case 'developer':
      return `developer "${short(change.from)}" → "${short(change.to)}"`;
    case 'badge':
      return change.to ? 'gained the Built-for badge' : 'lost the Built-for badge';
  }
}

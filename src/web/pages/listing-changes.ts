/**
 * An app's listing changes as a timeline on its page: one entry per listing version, each change as a
 * field diff (a price up or down, plans added or removed, sets added to or taken from, the title, the
 * sentences of the description that changed). Everything quoted is the marketplace's text: escaped.
 */
import { fieldLabel } from '../../market/change-text.js';
import type { DiffHunk } from '../../market/description.js';
import type { ListingChange } from '../../market/listing.js';
import { html, type SafeHtml } from '../html.js';
import type { ListingTimeline } from '../market-views/index.js';
import { formatTime } from '../present.js';

/** A description diff shows at most this many hunks, and sentences a side in each. */
const MAX_HUNKS = 8;
const MAX_SENTENCES = 12;

function fromTo(from: unknown, to: unknown): SafeHtml {
  return html`<del>${String(from ?? '')}</del> → <ins>${String(to ?? '')}</ins>`;
}

function values(list: readonly unknown[] | undefined, tag: 'ins' | 'del'): SafeHtml[] {
  return (list ?? []).map((v, i) =>
    tag === 'ins'
      ? html`${i > 0 ? ', ' : ''}<ins>${String(v)}</ins>`
      : html`${i > 0 ? ', ' : ''}<del>${String(v)}</del>`,
  );
}

function addedRemoved(added: readonly unknown[] | undefined, removed: readonly unknown[] | undefined) {
  return html`${added?.length ? html`added ${values(added, 'ins')}` : ''}${
    added?.length && removed?.length ? '; ' : ''
  }${removed?.length ? html`removed ${values(removed, 'del')}` : ''}`;
}

function sentences(list: readonly string[], tag: 'ins' | 'del'): SafeHtml {
  const shown = list.slice(0, MAX_SENTENCES);
  return html`${shown.map((s) => (tag === 'ins' ? html`<ins>${s}</ins> ` : html`<del>${s}</del> `))}${
    list.length > shown.length
      ? html`<span class="muted small">… and ${list.length - shown.length} more</span>`
      : ''
  }`;
}

function descriptionDiff(hunks: readonly DiffHunk[]): SafeHtml {
  const shown = hunks.slice(0, MAX_HUNKS);
  return html`<div class="description-diff">${shown.map(
    (h) =>
      html`<p>${h.after ? html`<span class="context">…${h.after}</span> ` : ''}${sentences(h.removed ?? [], 'del')}${sentences(h.added ?? [], 'ins')}</p>`,
  )}${hunks.length > shown.length ? html`<p class="muted small">… and ${hunks.length - shown.length} more changed passages</p>` : ''}</div>`;
}

/** One change as a field diff. */
export function changeHtml(change: ListingChange): SafeHtml {
  switch (change.kind) {
    case 'title':
      return html`Title: ${fromTo(change.from, change.to)}`;
    case 'description':
      return html`Description:${descriptionDiff(change.hunks ?? [])}`;
    case 'pricing-summary':
      return html`Pricing summary: ${fromTo(change.from, change.to)}`;
    case 'plan-added':
      return html`Plan added: <strong>${change.plan}</strong> (<ins>${change.price}</ins>)`;
    case 'plan-removed':
      return html`Plan removed: <strong>${change.plan}</strong> (was <del>${change.price}</del>)`;
    case 'price-up':
    case 'price-down':
      return html`<strong>${change.plan}</strong>: price ${change.kind === 'price-up' ? 'up' : 'down'} ${fromTo(change.from, change.to)}${
        change.minor ? html` <span class="muted small">(minor: recorded, not alerted)</span>` : ''
      }`;
    case 'trial':
      return html`<strong>${change.plan}</strong>: trial ${fromTo(change.from, change.to)}`;
    case 'price-changed':
      return html`<strong>${change.plan}</strong>: price ${fromTo(change.from, change.to)}`;
    case 'plan-features':
      return html`<strong>${change.plan}</strong> features: ${addedRemoved(change.added, change.removed)}`;
    case 'set':
      return html`${capitalized(fieldLabel(change.field))}: ${addedRemoved(change.added, change.removed)}`;
    case 'developer':
      return html`Developer: ${fromTo(change.from, change.to)}`;
    default: {
      const other = change as { field?: unknown; kind?: unknown };
      if (other.field === 'badge' && (other.kind === 'gained' || other.kind === 'lost'))
        return html`Built-for badge ${other.kind}`;
      return html`${capitalized(fieldLabel(String(other.field ?? 'listing')))} changed`;
    }
  }
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const TONE: Record<string, string> = {
  'price-up': 'up',
  'price-down': 'down',
  'plan-added': 'added',
  'plan-removed': 'removed',
};

/** The app page's section; `undefined` when the app's listing was never read. */
export function listingSection(timeline: ListingTimeline | undefined, handle: string): SafeHtml {
  const next = timeline?.next;
  return html`<section aria-labelledby="listing-h" id="listing">
  <h2 id="listing-h">Listing changes</h2>
  ${
    timeline === undefined
      ? html`<p class="muted">The listing has not been read yet.</p>`
      : timeline.versions.length === 0
        ? html`<p class="muted">No change since the listing was first read.</p>`
        : html`<ol class="trail listing-timeline">${timeline.versions.map(
            (v) =>
              html`<li data-version="${v.versionId}"><span class="muted small">${formatTime(v.at)}</span><ul class="changes">${v.rows.map(
                (row) => {
                  const change = row.change as ListingChange;
                  return html`<li class="change ${TONE[change.kind] ?? 'changed'}">${changeHtml(change)}</li>`;
                },
              )}</ul></li>`,
          )}</ol>${
            next === undefined
              ? ''
              : html`<p class="muted small">Older changes: <a href="/api/apps/${handle}/changes?cursor=${next}">the JSON API</a>.</p>`
          }`
  }
</section>`;
}

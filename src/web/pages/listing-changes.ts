/**
 * An app's listing changes as a timeline on its page: one entry per listing version, each change as a
 * field diff (a price up or down, plans added or removed, sets added to or taken from, the title, the
 * sentences of the description that changed). Everything quoted is the marketplace's text: escaped.
 */
import { type ChangePart, changeTone, describeListingChange } from '../../market/change-text.js';
import type { DiffHunk } from '../../market/description.js';
import type { ListingChange } from '../../market/listing.js';
import { html, type SafeHtml } from '../html.js';
import type { ListingTimeline } from '../market-views/index.js';
import { formatTime } from '../present.js';

/** A description diff shows at most this many hunks, and sentences a side in each. */
const MAX_HUNKS = 8;
const MAX_SENTENCES = 12;

function values(list: readonly unknown[], tag: 'ins' | 'del'): SafeHtml[] {
  return list.map((v, i) =>
    tag === 'ins'
      ? html`${i > 0 ? ', ' : ''}<ins>${String(v)}</ins>`
      : html`${i > 0 ? ', ' : ''}<del>${String(v)}</del>`,
  );
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
  return html`:<div class="description-diff">${shown.map(
    (h) =>
      html`<p>${h.after ? html`<span class="context">…${h.after}</span> ` : ''}${sentences(h.removed ?? [], 'del')}${sentences(h.added ?? [], 'ins')}</p>`,
  )}${hunks.length > shown.length ? html`<p class="muted small">… and ${hunks.length - shown.length} more changed passages</p>` : ''}</div>`;
}

/** One part of a change's description (market/change-text.ts) as markup; marketplace text escaped. */
function partHtml(part: ChangePart): SafeHtml | string {
  if (typeof part === 'string') return part;
  if ('name' in part) return html`<strong>${String(part.name ?? '')}</strong>`;
  if ('from' in part)
    return html`<del>${String(part.from ?? '')}</del> → <ins>${String(part.to ?? '')}</ins>`;
  if ('went' in part)
    return part.went === 'in'
      ? html`<ins>${String(part.value ?? '')}</ins>`
      : html`<del>${String(part.value ?? '')}</del>`;
  if ('added' in part) {
    const { added, removed } = part;
    return html`${added.length ? html`added ${values(added, 'ins')}` : ''}${added.length && removed.length ? '; ' : ''}${
      removed.length ? html`removed ${values(removed, 'del')}` : ''
    }`;
  }
  if ('hunks' in part) return descriptionDiff(part.hunks);
  return html` <span class="muted small">(${part.note})</span>`;
}

/** One change as a field diff: the same description as its text (`describeChange`), in markup. */
export function changeHtml(change: ListingChange): SafeHtml {
  return html`${describeListingChange(change).map(partHtml)}`;
}

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
                  return html`<li class="change ${changeTone(change)}">${changeHtml(change)}</li>`;
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

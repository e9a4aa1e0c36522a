import { html, type SafeHtml } from '../html.js';

type Key = [keys: SafeHtml, does: string];

const LIST_KEYS: Key[] = [
  [html`<kbd>j</kbd> / <kbd>k</kbd>`, 'next / previous review'],
  [html`<kbd>a</kbd>`, 'set the current review acknowledged'],
  [html`<kbd>r</kbd>`, 'set it resolved (it leaves an open view, with an Undo)'],
  [html`<kbd>i</kbd>`, 'set it ignored'],
  [html`<kbd>x</kbd>`, 'select it for a bulk action'],
  [html`<kbd>/</kbd>`, 'search'],
  [html`<kbd>?</kbd>`, 'these keys'],
];

const REVIEW_KEYS: Key[] = [
  [html`<kbd>a</kbd>, <kbd>r</kbd>, <kbd>i</kbd>`, 'set the status acknowledged, resolved or ignored'],
  [html`<kbd>Shift</kbd>+<kbd>R</kbd>`, 'resolve and open the next review'],
  [html`<kbd>Shift</kbd>+<kbd>A</kbd>`, 'acknowledge and open the next review'],
  [html`<kbd>j</kbd> / <kbd>k</kbd>`, 'next / previous review in the list'],
  [html`<kbd>u</kbd>`, 'back to the list'],
  [html`<kbd>?</kbd>`, 'these keys'],
];

/**
 * The keyboard's keys for a page, in a modal `<dialog>` the script opens on `?` (inbox.js); Escape or its
 * button closes it (the browser's own behaviour, no script). Keys typed into a field stay text.
 */
export function keysDialog(page: 'list' | 'review'): SafeHtml {
  const keys = page === 'list' ? LIST_KEYS : REVIEW_KEYS;
  return html`<dialog class="keys" id="keys-dialog" aria-labelledby="keys-title">
  <h2 id="keys-title">Keys</h2>
  <table class="keys"><thead><tr><th class="cell head" scope="col">Key</th><th class="cell head" scope="col">Does</th></tr></thead>
  <tbody>${keys.map(([k, does]) => html`<tr><td class="cell key">${k}</td><td class="cell">${does}</td></tr>`)}</tbody></table>
  <p class="muted small">Keys typed into a field are text, not shortcuts. <kbd>Esc</kbd> closes this.</p>
  <form method="dialog"><button type="submit" class="primary">Close</button></form>
</dialog>`;
}

import { SCRIPT_FILE, STYLESHEET } from '../assets.js';
import type { Principal } from '../auth.js';
import { documentOf, html, type SafeHtml } from '../html.js';

/** The CSRF field every form that changes something carries. */
export function csrfField(principal: Principal | undefined): SafeHtml {
  return principal?.kind === 'user'
    ? html`<input type="hidden" name="_csrf" value="${principal.csrfToken}">`
    : html``;
}

/**
 * A part of a page folded behind a button on a narrow screen: a `<details>`, so it works without
 * JavaScript. Wide screens show it unfolded, without the button (inbox.css), where the browser can.
 * With `remember`, it folds on every screen instead, closed unless `open`, and the script keeps it as the
 * reader left it (localStorage, under that name; inbox.js).
 */
export function fold(
  summary: string,
  content: SafeHtml,
  options: { remember?: string; open?: boolean } = {},
): SafeHtml {
  const remember = options.remember ? html` data-remember="${options.remember}"` : '';
  return html`<details class="fold${options.remember ? ' foldable' : ''}"${remember}${options.open ? html` open` : ''}><summary>${summary}</summary>${content}</details>`;
}

/**
 * What a page tells its script about live updates (web/live.ts): the open count it was drawn with (in its
 * title and icon, so they say it without JavaScript too), the URL to poll, and where "show" leads.
 */
export interface LivePage {
  open: number;
  /** `/api/live?…`: the view's filters and the store's mark at drawing time. */
  url: string;
  /** How often to poll, in ms, while the page is visible. */
  every: number;
  /** The page drawn afresh, for the "N new reviews — show" banner; absent, the page shows no banner. */
  show?: string;
  /** On a review's page: its id, so the page can say when someone else changes it. */
  review?: number;
}

/** "(12) Inbox · reviewwatch": the open count first, where a narrow tab still shows it. */
export function documentTitle(title: string, open: number | undefined): string {
  return `${open ? `(${open}) ` : ''}${title} · reviewwatch`;
}

export function layout(options: {
  title: string;
  principal?: Principal;
  body: SafeHtml;
  live?: LivePage | undefined;
}): string {
  const { principal, live } = options;
  const who =
    principal?.kind === 'user'
      ? html`<span>Signed in as <strong>${principal.name}</strong></span>
          <form method="post" action="/logout">${csrfField(principal)}<button type="submit">Log out</button></form>`
      : principal
        ? html`<span>admin token</span>`
        : html``;
  const icon = live?.open ? `/favicon.svg?open=${live.open}` : '/favicon.svg';
  const liveData = live
    ? html` data-title="${options.title} · reviewwatch" data-live-url="${live.url}" data-live-every="${live.every}"${
        live.show ? html` data-live-show="${live.show}"` : ''
      }${live.review !== undefined ? html` data-live-review="${live.review}"` : ''}`
    : '';
  return documentOf(html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${documentTitle(options.title, live?.open)}</title>
<link rel="icon" id="favicon" type="image/svg+xml" href="${icon}">
<link rel="stylesheet" href="${STYLESHEET.path}">
${principal?.kind === 'user' ? html`<meta name="csrf-token" content="${principal.csrfToken}">` : ''}
${principal ? html`<script src="${SCRIPT_FILE.path}" defer></script>` : ''}
</head>
<body${liveData}>
<a class="skip-link" href="#main">Skip to the content</a>
<header class="top"><a class="brand" href="/">reviewwatch inbox</a>${principal ? html`<a class="nav" href="/market">Market</a><a class="nav" href="/topics">Topics</a>` : ''}<div class="who">${who}</div></header>
<main id="main" tabindex="-1">
${options.body}
<p id="live" class="visually-hidden" role="status" aria-live="polite"></p>
${live?.show || live?.review !== undefined ? html`<div class="live-banner" id="live-banner" hidden></div>` : ''}
</main>
</body>
</html>`);
}

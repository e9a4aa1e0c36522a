import { SCRIPT_FILE, STYLESHEET } from '../assets.js';
import type { Principal } from '../auth.js';
import { documentOf, html, type SafeHtml } from '../html.js';

/** The CSRF field every form that changes something carries. */
export function csrfField(principal: Principal | undefined): SafeHtml {
  return principal?.kind === 'user'
    ? html`<input type="hidden" name="_csrf" value="${principal.csrfToken}">`
    : html``;
}

export function layout(options: { title: string; principal?: Principal; body: SafeHtml }): string {
  const { principal } = options;
  const who =
    principal?.kind === 'user'
      ? html`<span>Signed in as <strong>${principal.name}</strong></span>
          <form method="post" action="/logout">${csrfField(principal)}<button type="submit">Log out</button></form>`
      : principal
        ? html`<span>admin token</span>`
        : html``;
  return documentOf(html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${options.title} · reviewwatch</title>
<link rel="stylesheet" href="${STYLESHEET.path}">
${principal?.kind === 'user' ? html`<meta name="csrf-token" content="${principal.csrfToken}">` : ''}
${principal ? html`<script src="${SCRIPT_FILE.path}" defer></script>` : ''}
</head>
<body>
<header class="top"><a class="brand" href="/">reviewwatch inbox</a><div class="who">${who}</div></header>
<main id="main">
${options.body}
<p id="live" class="visually-hidden" role="status" aria-live="polite"></p>
</main>
</body>
</html>`);
}

import type { Principal } from '../auth.js';
import { html } from '../html.js';
import { layout } from './layout.js';

/** A short page that says one thing and links back. */
export function messagePage(title: string, message: string, back: string, principal?: Principal): string {
  return layout({
    title,
    ...(principal ? { principal } : {}),
    body: html`<h1>${title}</h1><p class="error" role="alert">${message}</p><p><a href="${back}">Back</a></p>`,
  });
}

/** What was wrong with a request, point by point, and where to go from here. */
export function problemsPage(options: {
  title: string;
  intro: string;
  problems: readonly string[];
  back: string;
  principal?: Principal | undefined;
}): string {
  return layout({
    title: options.title,
    ...(options.principal ? { principal: options.principal } : {}),
    body: html`<h1>${options.title}</h1>
<div class="error" role="alert"><p>${options.intro}</p>${
      options.problems.length > 0 ? html`<ul>${options.problems.map((p) => html`<li>${p}</li>`)}</ul>` : ''
    }</div>
<p><a href="${options.back}">Back</a></p>`,
  });
}

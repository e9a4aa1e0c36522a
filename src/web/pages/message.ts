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

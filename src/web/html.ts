/**
 * HTML that escapes by default. `html\`…\`` escapes every interpolated value, unless it is itself built by
 * `html` (or, for constants only, marked with `trusted()`). Untrusted text (reviews, reviewer names,
 * notes, tags) can then only reach a page as text: there is no string concatenation of markup anywhere
 * in src/web, and forgetting to escape is not possible.
 *
 * Values go in text or in double-quoted attribute values; both are safe with the same escaping. A URL
 * taken from outside goes through `safeUrl()` first: escaping does not stop `javascript:`.
 */
import { cleanText, escapeHtml } from '../render/escape.js';

const SAFE = Symbol('safe html');

export interface SafeHtml {
  readonly [SAFE]: true;
  readonly text: string;
}

function safe(text: string): SafeHtml {
  return { [SAFE]: true, text };
}

export function isSafeHtml(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && SAFE in value;
}

/** What may be interpolated: text and numbers (escaped), built HTML, lists of those, and nothing. */
export type HtmlValue = string | number | SafeHtml | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('');
  if (isSafeHtml(value)) return value.text;
  // Control and bidi-override characters out, so a review cannot reorder what is around it on the page.
  return escapeHtml(cleanText(String(value)));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return safe(out);
}

/**
 * Markup written in this codebase, never anything received: the one way around escaping, so every use
 * is easy to find and review.
 */
export function trusted(markup: string): SafeHtml {
  return safe(markup);
}

/** An http(s) URL for an href, or undefined: `javascript:`, `data:` and relative tricks never pass. */
export function safeUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** A whole document, with the doctype. */
export function documentOf(body: SafeHtml): string {
  return `<!doctype html>\n${body.text}`;
}

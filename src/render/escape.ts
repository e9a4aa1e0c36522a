/**
 * Escaping and trimming of untrusted text. Everything a renderer takes from the marketplace (content,
 * reviewer, location, app name) goes through here before it reaches Slack or HTML.
 */

/**
 * Slack treats only `&`, `<` and `>` as control characters: `<!channel>` pages everyone and
 * `<https://x|label>` disguises a link. Replacing those three neutralises both; Slack decodes them for
 * display. `*bold*` and `_italic_` stay as they are: formatting is harmless and readers expect it.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** For HTML text and attribute values (quotes too, so an attribute can never be closed early). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

// Control characters other than newline and tab render as garbage or break JSON-size estimates; bidi
// overrides can make a reviewer name or a review read differently from what it is ("Trojan Source").
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const UNSAFE_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Untrusted text made safe to lay out: every line break (CRLF, CR, NEL, U+2028/2029) becomes LF, control
 * and bidi-override characters are removed.
 */
export function cleanText(text: string): string {
  return text.replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n').replace(UNSAFE_CHARACTERS, '');
}

/**
 * One line: every kind of line break (CR, LF, NEL, U+2028/2029) and run of whitespace becomes a single
 * space. Email subjects need this: a CR/LF in a header is header injection.
 */
export function oneLine(text: string): string {
  return cleanText(text).replace(/\s+/g, ' ').trim();
}

const ENTITY_AT_END = /&(?:[a-z]+|#\d+|#x[0-9a-f]+)?$/i;

/**
 * At most `max` UTF-16 units (what JavaScript and Slack's limits count, conservatively), ending in `…`
 * when cut. Never cuts inside an escape entity (`&amp;`) or a surrogate pair, so the result of cutting
 * escaped text is still valid escaped text.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < 1) return '';
  let cut = max - 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  // An entity is at most 10 units (`&#x1F600;`): an unterminated `&…` just before the cut may be one we
  // would split. Dropping a few more characters than needed is cheaper than telling the cases apart.
  const partial = ENTITY_AT_END.exec(text.slice(Math.max(0, cut - 10), cut));
  if (partial) cut -= partial[0].length;
  return `${text.slice(0, cut).trimEnd()}…`;
}

/** "★★☆☆☆": the rating as a reader sees it on the listing. */
export function stars(rating: number): string {
  const filled = Math.min(5, Math.max(0, Math.round(Number.isFinite(rating) ? rating : 0)));
  return '★'.repeat(filled) + '☆'.repeat(5 - filled);
}

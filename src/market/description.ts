/**
 * Listing descriptions: long marketing text whose whitespace and markup change without a change of
 * meaning. Normalised to plain sentences, then compared sentence by sentence so that a change shows only
 * what changed, not the whole page.
 */

const BLOCK_TAGS = new Set([
  'p',
  'br',
  'div',
  'li',
  'ul',
  'ol',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'tr',
  'hr',
]);

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * Tags out, block tags turned into line breaks. A scan rather than a regex: a 50 KB description full of
 * unclosed `<` would make `/<[^>]*>/` quadratic.
 */
function stripTags(html: string): string {
  let out = '';
  let i = 0;
  while (i < html.length) {
    const open = html.indexOf('<', i);
    if (open < 0) {
      out += html.slice(i);
      break;
    }
    const close = html.indexOf('>', open + 1);
    // Not a tag: a bare "<" ("rating < 3"), or no ">" anywhere after it.
    if (close < 0 || !/^<\/?[a-z!]/i.test(html.slice(open, open + 3))) {
      out += html.slice(i, open + 1);
      i = open + 1;
      if (close < 0) {
        out += html.slice(i);
        break;
      }
      continue;
    }
    out += html.slice(i, open);
    const name = /^<\/?\s*([a-z0-9]+)/i
      .exec(html.slice(open, Math.min(close + 1, open + 20)))?.[1]
      ?.toLowerCase();
    // Inline tags join what they wrap: "<b>every</b>where" is "everywhere".
    if (name !== undefined && BLOCK_TAGS.has(name)) out += '\n';
    i = close + 1;
  }
  return out;
}

/**
 * Markdown-ish markup a listing editor adds or drops: list markers, headings, emphasis. Emphasis spans are
 * bounded so that hostile text full of unmatched `**` stays linear.
 */
function stripMarkup(line: string): string {
  return line
    .replace(/^\s*(?:[-*•·▪◦+]|\d{1,3}[.)]|#{1,6})\s+/, '')
    .replace(/(\*\*|__)(?=\S)(.{1,200}?)(?<=\S)\1/g, '$2')
    .replace(/(^|[\s(])[*_](?=\S)([^*_\n]{1,200}?)(?<=\S)[*_](?=$|[\s).,!?:;])/g, '$1$2');
}

/** The description as plain lines of text: no tags, entities decoded, no markup, single spaces, no blank lines. */
export function normalizeDescription(raw: string): string {
  const text = decodeEntities(stripTags(raw.normalize('NFC')).replace(/\r\n?/g, '\n'));
  return text
    .split('\n')
    .map((line) => stripMarkup(line.replace(/[\s\u00a0\u200b\ufeff]+/g, ' ').trim()))
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** Sentences of a normalised description: each line, cut after ".", "!" or "?" followed by a space. */
export function sentencesOf(normalized: string): string[] {
  if (normalized === '') return [];
  return normalized.split('\n').flatMap((line) => line.split(/(?<=[.!?])\s+(?=\S)/).filter((s) => s !== ''));
}

export interface DiffHunk {
  /** The unchanged sentence just before the change, for context; null at the start. */
  after: string | null;
  removed: string[];
  added: string[];
}

/** Above this many cells the sentence LCS gives way to a set difference (still changes only, order lost). */
const MAX_LCS_CELLS = 4_000_000;

/** The changes between two lists of sentences, as hunks: only what changed, with one sentence of context. */
export function diffSentences(before: readonly string[], after: readonly string[]): DiffHunk[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endB = before.length;
  let endA = after.length;
  while (endB > start && endA > start && before[endB - 1] === after[endA - 1]) {
    endB--;
    endA--;
  }
  const b = before.slice(start, endB);
  const a = after.slice(start, endA);
  if (b.length === 0 && a.length === 0) return [];
  const context = start > 0 ? (before[start - 1] as string) : null;
  if (b.length * a.length > MAX_LCS_CELLS) {
    const left = new Set(a);
    const right = new Set(b);
    return [
      { after: context, removed: b.filter((s) => !left.has(s)), added: a.filter((s) => !right.has(s)) },
    ];
  }
  // LCS lengths from the end, so the walk below goes forward.
  const w = a.length + 1;
  const table = new Uint32Array((b.length + 1) * w);
  for (let i = b.length - 1; i >= 0; i--) {
    for (let j = a.length - 1; j >= 0; j--) {
      table[i * w + j] =
        b[i] === a[j]
          ? (table[(i + 1) * w + j + 1] as number) + 1
          : Math.max(table[(i + 1) * w + j] as number, table[i * w + j + 1] as number);
    }
  }
  const hunks: DiffHunk[] = [];
  let current: DiffHunk | null = null;
  let last = context;
  let i = 0;
  let j = 0;
  while (i < b.length || j < a.length) {
    if (i < b.length && j < a.length && b[i] === a[j]) {
      if (current !== null) hunks.push(current);
      current = null;
      last = b[i] as string;
      i++;
      j++;
      continue;
    }
    current ??= { after: last, removed: [], added: [] };
    if (
      j >= a.length ||
      (i < b.length && (table[(i + 1) * w + j] as number) >= (table[i * w + j + 1] as number))
    ) {
      current.removed.push(b[i] as string);
      i++;
    } else {
      current.added.push(a[j] as string);
      j++;
    }
  }
  if (current !== null) hunks.push(current);
  return hunks;
}

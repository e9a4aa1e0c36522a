/**
 * Microsoft Teams messages: a Workflows webhook's `message` with one Adaptive Card (1.4) attachment.
 *
 * Escaping: a TextBlock and a FactSet are read as Teams markdown (`[label](url)`, `**bold**`), a TextRun
 * is not (Adaptive Cards' schema: "TextRun does not support markdown"). So every text taken from the
 * data (review, reviewer, app and category names, market lines) goes in TextRuns of a RichTextBlock, and
 * TextBlocks hold only this file's own words, escaped all the same. Teams pings only with an `<at>`
 * mention backed by `msteams.entities`, and this card declares none.
 *
 * Size: Teams refuses a message over about 28 KB. The card is measured as the UTF-8 JSON it is sent as
 * and fitted under TEAMS_LIMITS.bytes by leaving out the last items of a list and then shortening the
 * quote, saying what was left out.
 */
import type { Priority } from '../../scoring/priority.js';
import { plural } from '../../util/plural.js';
import type { ChatDoc, ChatItem } from '../chat-doc.js';
import { truncate } from '../escape.js';
import { SIMULATED_NOTE } from '../wording.js';

export const TEAMS_LIMITS = {
  /** Teams' limit is about 28 KB for the whole message; the rest is the flow's headroom. */
  bytes: 26_000,
  /** A single review is quoted whole up to here. */
  quote: 4_000,
  /** Each review or app of a list. */
  itemText: 400,
  /** Buttons: Teams shows few in a row, and these are all there are. */
  actions: 5,
} as const;

export interface TextRun {
  type: 'TextRun';
  text: string;
  weight?: 'Bolder';
  size?: 'Large' | 'Medium';
  isSubtle?: boolean;
  italic?: boolean;
  color?: 'Attention' | 'Warning' | 'Accent' | 'Good';
}
export interface RichTextBlock {
  type: 'RichTextBlock';
  inlines: TextRun[];
  separator?: boolean;
}
export interface TextBlock {
  type: 'TextBlock';
  text: string;
  wrap: true;
  weight?: 'Bolder';
  isSubtle?: boolean;
  color?: 'Attention' | 'Warning';
  size?: 'Small';
}
export interface Container {
  type: 'Container';
  style?: 'emphasis' | 'attention' | 'warning';
  items: CardElement[];
}
export type CardElement = TextBlock | RichTextBlock | Container;
export interface OpenUrlAction {
  type: 'Action.OpenUrl';
  title: string;
  url: string;
}
export interface AdaptiveCard {
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json';
  type: 'AdaptiveCard';
  version: '1.4';
  body: CardElement[];
  actions?: OpenUrlAction[];
  msteams: { width: 'Full' };
}
export interface TeamsMessage {
  type: 'message';
  /** Not shown by Teams: what a digest run records, and what tests read. */
  summary: string;
  attachments: [
    { contentType: 'application/vnd.microsoft.card.adaptive'; contentUrl: null; content: AdaptiveCard },
  ];
}

/**
 * Backslash-escapes what Teams markdown reads as markup: emphasis, links, headings, lists, code and
 * angle brackets. For TextBlocks only: TextRuns show their text as it is.
 */
export function escapeTeams(text: string): string {
  return text
    .replace(/[\\`*_~[\]()<>#|!]/g, '\\$&')
    .replace(/^(\s*)([-+])(?=\s)/gm, '$1\\$2')
    .replace(/^(\s*\d+)\.(?=\s)/gm, '$1\\.');
}

const COLOR: Record<Priority, TextRun['color']> = {
  critical: 'Attention',
  high: 'Attention',
  medium: 'Warning',
  low: 'Accent',
};

function run(text: string, style: Omit<TextRun, 'type' | 'text'> = {}): TextRun {
  return { type: 'TextRun', text, ...style };
}

function rich(...inlines: TextRun[]): RichTextBlock {
  return { type: 'RichTextBlock', inlines };
}

function note(text: string): TextBlock {
  return { type: 'TextBlock', text: escapeTeams(text), wrap: true, isSubtle: true, size: 'Small' };
}

function item(entry: ChatItem): Container {
  const inlines = [run(entry.heading, { weight: 'Bolder' }), run(`\n${entry.details}`, { isSubtle: true })];
  if (entry.text !== '')
    inlines.push(run(`\n${truncate(entry.text, TEAMS_LIMITS.itemText)}`, { italic: true }));
  return { type: 'Container', items: [rich(...inlines)] };
}

/** The card with the first `shown` items and the quote cut at `quoteMax`. */
function card(doc: ChatDoc, shown: number, quoteMax: number): AdaptiveCard {
  const body: CardElement[] = [];
  if (doc.simulated)
    body.push({
      type: 'TextBlock',
      text: escapeTeams(SIMULATED_NOTE),
      wrap: true,
      weight: 'Bolder',
      color: 'Warning',
    });
  body.push(rich(run(doc.title, { weight: 'Bolder', size: 'Large', color: COLOR[doc.priority] })));
  if (doc.summary !== undefined) body.push(rich(run(doc.summary)));
  if (doc.facts.length > 0) {
    const facts = doc.facts.flatMap((f, i) => [
      run(`${i === 0 ? '' : '\n'}${f.label}: `, { weight: 'Bolder' }),
      run(f.value),
    ]);
    body.push(rich(...facts));
  }
  if (doc.quote !== undefined) {
    const quote =
      doc.quote === ''
        ? run('(no text)', { isSubtle: true })
        : run(truncate(doc.quote, quoteMax), { italic: true });
    body.push({ type: 'Container', style: 'emphasis', items: [rich(quote)] });
  }
  for (const section of doc.sections) {
    body.push(
      rich(
        run(`${section.label}\n`, { weight: 'Bolder' }),
        run(section.lines.map((l) => `• ${l}`).join('\n')),
      ),
    );
  }
  body.push(...doc.items.slice(0, shown).map(item));
  const omitted = doc.items.length - shown;
  const cut = doc.quote !== undefined && doc.quote.length > quoteMax;
  if (omitted > 0)
    body.push(
      note(
        `… and ${plural(omitted, `more ${doc.itemNoun}`)} not shown: Teams limits a message to about 28 KB.`,
      ),
    );
  if (cut) body.push(note('The review is cut short: Teams limits a message to about 28 KB.'));
  body.push(note(doc.footer));
  const actions = doc.links
    .slice(0, TEAMS_LIMITS.actions)
    .map((l): OpenUrlAction => ({ type: 'Action.OpenUrl', title: l.label, url: l.url }));
  return {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
    ...(actions.length > 0 ? { actions } : {}),
    msteams: { width: 'Full' },
  };
}

function message(doc: ChatDoc, content: AdaptiveCard): TeamsMessage {
  return {
    type: 'message',
    summary: truncate(doc.title, 200),
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content }],
  };
}

/** The size Teams counts: the UTF-8 bytes of the JSON sent. */
export function teamsMessageBytes(message: TeamsMessage): number {
  return Buffer.byteLength(JSON.stringify(message), 'utf8');
}

/**
 * How many items could fit, by adding up their sizes: where the search for the card that fits starts,
 * so a group of hundreds of reviews is not measured hundreds of times.
 */
function mostItems(doc: ChatDoc): number {
  let room = TEAMS_LIMITS.bytes - teamsMessageBytes(message(doc, card(doc, 0, TEAMS_LIMITS.quote)));
  let shown = 0;
  for (const entry of doc.items) {
    room -= Buffer.byteLength(JSON.stringify(item(entry)), 'utf8') + 1;
    if (room < 0) break;
    shown += 1;
  }
  return shown;
}

/** The document as a Teams message within TEAMS_LIMITS.bytes: fewer items first, then a shorter quote. */
export function teamsMessage(doc: ChatDoc): TeamsMessage {
  const fits = (m: TeamsMessage) => teamsMessageBytes(m) <= TEAMS_LIMITS.bytes;
  for (let shown = mostItems(doc); shown >= 0; shown -= 1) {
    const m = message(doc, card(doc, shown, TEAMS_LIMITS.quote));
    if (fits(m)) return m;
  }
  for (let quoteMax = TEAMS_LIMITS.quote / 2; quoteMax >= 50; quoteMax = Math.floor(quoteMax / 2)) {
    const m = message(doc, card(doc, 0, quoteMax));
    if (fits(m)) return m;
  }
  // Only a document whose own words overflow gets here (none does: they are all capped upstream).
  return message(doc, card({ ...doc, sections: [], facts: [] }, 0, 50));
}

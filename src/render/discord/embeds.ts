/**
 * Discord webhook messages: a short `content` line and one embed, within Discord's limits (content
 * 2,000 characters; embed title 256, description 4,096, field name 256, value 1,024, footer 2,048,
 * 25 fields, 10 embeds, 6,000 characters across the embeds). Text from the data is escaped for Discord
 * markdown and cut after escaping; what does not fit is left out with an ellipsis and a note saying so.
 * `allowed_mentions: { parse: [] }` keeps any `@everyone` or `<@id>` a review may hold from pinging
 * anyone; the escaping keeps it from even looking like one.
 */
import type { Priority } from '../../scoring/priority.js';
import { plural } from '../../util/plural.js';
import type { ChatDoc, ChatItem } from '../chat-doc.js';
import { truncate } from '../escape.js';
import { SIMULATED_NOTE } from '../wording.js';

export const DISCORD_LIMITS = {
  content: 2_000,
  title: 256,
  description: 4_096,
  fieldName: 256,
  fieldValue: 1_024,
  footer: 2_048,
  fields: 25,
  embeds: 10,
  total: 6_000,
} as const;

export interface EmbedField {
  name: string;
  value: string;
  inline?: boolean;
}
export interface Embed {
  title: string;
  description?: string;
  url?: string;
  color: number;
  fields: EmbedField[];
  footer: { text: string };
}
export interface DiscordMessage {
  content: string;
  embeds: Embed[];
  allowed_mentions: { parse: [] };
}

/**
 * Backslash-escapes Discord markdown: emphasis, strikethrough, spoilers, code, masked links, mentions
 * and custom emoji (`<…>`; a webhook's `:name:` stays text), and quotes, headings, subtext (`-# `) and lists at
 * the start of a line.
 */
export function escapeDiscord(text: string): string {
  return text
    .replace(/[\\*_~`|[\]()<>@]/g, '\\$&')
    .replace(/^(\s*)(#{1,3}|-#|[-+])(?=\s)/gm, '$1\\$2')
    .replace(/^(\s*\d+)\.(?=\s)/gm, '$1\\.');
}

/** Escaped and cut to `max` after escaping, never between a backslash and what it escapes. */
export function fitEscaped(raw: string, max: number): string {
  let room = max;
  for (;;) {
    const escaped = escapeDiscord(truncate(raw, room));
    if (escaped.length <= max || room <= 1) return escaped.length <= max ? escaped : '…';
    room -= escaped.length - max;
  }
}

const COLOR: Record<Priority, number> = {
  critical: 0xb71c1c,
  high: 0xe53935,
  medium: 0xfb8c00,
  low: 0x1e88e5,
};

/** Characters Discord counts against the 6,000 of all embeds. */
export function embedCharacters(embed: Embed): number {
  return (
    embed.title.length +
    (embed.description?.length ?? 0) +
    embed.footer.text.length +
    embed.fields.reduce((sum, f) => sum + f.name.length + f.value.length, 0)
  );
}

/** Masked links with our labels; parentheses in a URL would end the link early, so they are encoded. */
function linkLine(doc: ChatDoc): string {
  return doc.links
    .map((l) => `[${l.label}](${l.url.replace(/\(/g, '%28').replace(/\)/g, '%29')})`)
    .join(' · ');
}

/** The description: the simulated note, summary, quote and sections, then the links, in 4,096. */
function description(doc: ChatDoc, quoteMax: number): string {
  const parts: string[] = [];
  if (doc.simulated) parts.push(`**${escapeDiscord(SIMULATED_NOTE)}**`);
  if (doc.summary !== undefined) parts.push(fitEscaped(doc.summary, 1_000));
  if (doc.quote !== undefined) {
    const quote = doc.quote === '' ? '*(no text)*' : fitEscaped(doc.quote, quoteMax);
    parts.push(
      quote
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n'),
    );
  }
  for (const section of doc.sections) {
    const lines = section.lines.map((l) => `• ${fitEscaped(l, 400)}`).join('\n');
    parts.push(`**${escapeDiscord(section.label)}**\n${lines}`);
  }
  const links = linkLine(doc);
  // The links are what to click: they are kept whole and the text before them is what gets cut.
  const room = DISCORD_LIMITS.description - (links === '' ? 0 : links.length + 2);
  const text = truncate(parts.join('\n\n'), room).replace(/(?<!\\)((?:\\\\)*)\\…$/, '$1…');
  return links === '' ? text : `${text}\n\n${links}`;
}

/**
 * How much of each item's text is quoted, longest first: every review of a group shown, each quoted
 * shorter, before any is left out (a group's reviews are all marked sent with its message).
 */
const ITEM_TEXT_MAX = [600, 300, 150] as const;

function itemField(entry: ChatItem, textMax: number): EmbedField {
  const text = entry.text === '' ? '' : `\n> ${fitEscaped(entry.text, textMax)}`;
  const value = `${fitEscaped(entry.details, 300)}${text}`.replace(/\n> $/, '');
  return {
    name: fitEscaped(entry.heading, DISCORD_LIMITS.fieldName),
    value: truncate(value, DISCORD_LIMITS.fieldValue),
  };
}

function embed(doc: ChatDoc, shown: number, quoteMax: number, textMax: number = ITEM_TEXT_MAX[0]): Embed {
  const facts = doc.facts.slice(0, 10).map((f) => ({
    name: fitEscaped(f.label, DISCORD_LIMITS.fieldName),
    value: fitEscaped(f.value || '—', DISCORD_LIMITS.fieldValue),
    inline: true,
  }));
  const room = DISCORD_LIMITS.fields - facts.length;
  const listed = doc.items.slice(0, Math.min(shown, room));
  const items = listed.map((item) => itemField(item, textMax));
  const omitted = doc.items.length - items.length;
  const notes: string[] = [];
  if (omitted > 0)
    notes.push(`… and ${plural(omitted, `more ${doc.itemNoun}`)} not shown (Discord's message limits).`);
  if (textMax < ITEM_TEXT_MAX[0] && listed.some((item) => escapeDiscord(item.text).length > textMax))
    notes.push(`Each ${doc.itemNoun} is quoted shorter (Discord's message limits).`);
  if (doc.quote !== undefined && escapeDiscord(doc.quote).length > quoteMax)
    notes.push("The review is cut short (Discord's message limits).");
  notes.push(doc.footer);
  const url = doc.links[0]?.url;
  const text = description(doc, quoteMax);
  return {
    title: fitEscaped(doc.title, DISCORD_LIMITS.title),
    // Discord refuses an empty description.
    ...(text === '' ? {} : { description: text }),
    ...(url === undefined ? {} : { url }),
    color: COLOR[doc.priority],
    fields: [...facts, ...items],
    footer: { text: truncate(notes.join(' '), DISCORD_LIMITS.footer) },
  };
}

/**
 * The document as a Discord message within DISCORD_LIMITS: every item, each quoted shorter, then fewer
 * items, then a shorter quote.
 */
export function discordMessage(doc: ChatDoc): DiscordMessage {
  const message = (e: Embed): DiscordMessage => ({
    content: fitEscaped(doc.title, DISCORD_LIMITS.content),
    embeds: [e],
    allowed_mentions: { parse: [] },
  });
  const all = Math.min(doc.items.length, DISCORD_LIMITS.fields);
  for (const textMax of ITEM_TEXT_MAX) {
    const e = embed(doc, all, 3_000, textMax);
    if (embedCharacters(e) <= DISCORD_LIMITS.total) return message(e);
  }
  const shortest = ITEM_TEXT_MAX[ITEM_TEXT_MAX.length - 1];
  for (let shown = all - 1; shown >= 0; shown -= 1) {
    const e = embed(doc, shown, 3_000, shortest);
    if (embedCharacters(e) <= DISCORD_LIMITS.total) return message(e);
  }
  for (let quoteMax = 1_500; quoteMax >= 50; quoteMax = Math.floor(quoteMax / 2)) {
    const e = embed(doc, 0, quoteMax);
    if (embedCharacters(e) <= DISCORD_LIMITS.total) return message(e);
  }
  const e = embed({ ...doc, sections: [], facts: [] }, 0, 50);
  return message(e);
}

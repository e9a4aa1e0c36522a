/**
 * Slack Block Kit for incoming webhooks: the block types reviewwatch sends, Slack's limits, and the
 * builders every Slack message uses. Builders take text that is already escaped mrkdwn, except where a
 * parameter says it is plain, and cut it to Slack's limits after escaping, so no message is rejected.
 */
import { escapeMrkdwn, oneLine, truncate } from './escape.js';
import { type DataSource, SIMULATED_NOTE, tagSimulated } from './wording.js';

export interface PlainTextObject {
  type: 'plain_text';
  text: string;
  emoji?: boolean;
}

export interface MrkdwnObject {
  type: 'mrkdwn';
  text: string;
}

export interface HeaderBlock {
  type: 'header';
  text: PlainTextObject;
}

export interface SectionBlock {
  type: 'section';
  text?: MrkdwnObject;
  fields?: MrkdwnObject[];
  /** A button beside the text: a listed review's link to the inbox. */
  accessory?: ButtonElement;
}

export interface ContextBlock {
  type: 'context';
  elements: MrkdwnObject[];
}

export interface DividerBlock {
  type: 'divider';
}

export interface ButtonElement {
  type: 'button';
  text: PlainTextObject;
  url: string;
  action_id: string;
}

export interface ActionsBlock {
  type: 'actions';
  elements: ButtonElement[];
}

export type SlackBlock = HeaderBlock | SectionBlock | ContextBlock | DividerBlock | ActionsBlock;

export interface SlackMessage {
  /** Notification and fallback text: shown in push notifications and where blocks cannot be. */
  text: string;
  blocks: SlackBlock[];
}

/**
 * Block Kit's documented limits, and a total under the undocumented one near 13k characters. The total
 * is measured on the blocks' JSON, which is never shorter than their text, so it errs on the safe side.
 */
export const SLACK_LIMITS = {
  blocks: 50,
  header: 150,
  sectionText: 3_000,
  field: 2_000,
  fields: 10,
  buttonText: 75,
  url: 3_000,
  message: 12_000,
  fallbackText: 3_000,
} as const;

/** The size the total limit is checked against. */
export function slackBlocksSize(blocks: readonly SlackBlock[]): number {
  return JSON.stringify(blocks).length;
}

/** Whether `blocks` can go as one message: within the block count and the total size. */
export function fitsSlack(blocks: readonly SlackBlock[]): boolean {
  return blocks.length <= SLACK_LIMITS.blocks && slackBlocksSize(blocks) <= SLACK_LIMITS.message;
}

function mrkdwn(text: string, max: number = SLACK_LIMITS.sectionText): MrkdwnObject {
  return { type: 'mrkdwn', text: truncate(text, max) };
}

/** `text` is plain (unescaped); Slack decodes the three entities in plain_text too. */
export function header(text: string): HeaderBlock {
  return {
    type: 'header',
    text: {
      type: 'plain_text',
      text: truncate(escapeMrkdwn(oneLine(text)), SLACK_LIMITS.header),
      emoji: true,
    },
  };
}

/** A bold label over a plain (unescaped) value. */
export function field(label: string, value: string): MrkdwnObject {
  return mrkdwn(`*${label}*\n${escapeMrkdwn(value)}`, SLACK_LIMITS.field);
}

export function context(...texts: string[]): ContextBlock {
  return { type: 'context', elements: texts.map((t) => mrkdwn(t)) };
}

/** A section of mrkdwn text. */
export function section(text: string): SectionBlock {
  return { type: 'section', text: mrkdwn(text) };
}

/**
 * The notification text from plain text: tagged when the data is simulated, one line, escaped, within
 * Slack's limit.
 */
export function fallback(text: string, source: DataSource): string {
  return truncate(escapeMrkdwn(oneLine(tagSimulated(text, source))), SLACK_LIMITS.fallbackText);
}

/**
 * A message's top: the header (plain text, tagged when the data is simulated) and under it, for simulated
 * data, the note, in a block of its own so it cannot be cut off with a long review.
 */
export function headerBlocks(headline: string, source: DataSource): SlackBlock[] {
  const note = source.simulated === true ? [context(`:warning: *${escapeMrkdwn(SIMULATED_NOTE)}*`)] : [];
  return [header(tagSimulated(headline, source)), ...note];
}

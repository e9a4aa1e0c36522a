/**
 * The channel types, one row each: the config it takes (config/schema.ts, CHANNEL_SCHEMAS), its renderers
 * for every alert kind, the group, the digest and the test message (render/channels.ts), and how its
 * sender is opened. The table must have a row for every type of src/kinds.ts, and a row's renderers one
 * for every alert kind: either missing fails to compile. A new type is a row
 * here, a schema in the config and a set of renderers (docs/architecture.md, "Where to make a change").
 */
import { CHANNEL_SCHEMAS, type ChannelConfigOf } from '../config/index.js';
import type { ChannelType } from '../kinds.js';
import {
  type ChannelRenderers,
  type DataSource,
  DISCORD_RENDERERS,
  type DiscordMessage,
  EMAIL_RENDERERS,
  type EmailMessage,
  SLACK_RENDERERS,
  type SlackMessage,
  TEAMS_RENDERERS,
  type TeamsMessage,
  WEBHOOK_RENDERERS,
  type WebhookEvent,
} from '../render/index.js';
import { ConsoleSender } from './console.js';
import { DiscordSender } from './discord.js';
import { EmailSender } from './email.js';
import { RenderingChannel } from './rendering-channel.js';
import type { ChannelSender, Transport } from './sender.js';
import { SlackSender } from './slack.js';
import { TeamsSender } from './teams.js';
import { WebhookSender } from './webhook.js';

/** What opening a sender may need from outside the config. */
export interface ChannelEnv {
  /** SMTP_URL: email channels need it. */
  smtpUrl?: string | undefined;
  /** Where the console channel prints; stdout by default. */
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where the alerts' data comes from: every message says when it is simulated, and links the inbox. */
  source: DataSource;
}

/** One channel type's row; `M` is the message its renderers make and its transport posts. */
export interface ChannelTypeRow<T extends ChannelType, M> {
  readonly config: (typeof CHANNEL_SCHEMAS)[T];
  readonly renderers: ChannelRenderers<M>;
  /** What a digest run records as the subject of the message it sent. */
  readonly subjectOf: (message: M) => string;
  /** The transport of one configured channel, or what the environment lacks for it. */
  readonly transport: (name: string, config: ChannelConfigOf<T>, env: ChannelEnv) => Transport<M> | string;
}

/** A row with its message type hidden: all the rest of the program needs of it. */
export interface ChannelTypeEntry<T extends ChannelType> {
  readonly config: (typeof CHANNEL_SCHEMAS)[T];
  readonly open: (name: string, config: ChannelConfigOf<T>, env: ChannelEnv) => ChannelSender | string;
}

function row<T extends ChannelType, M>(type: T, spec: ChannelTypeRow<T, M>): ChannelTypeEntry<T> {
  return {
    config: spec.config,
    open(name, config, env) {
      const transport = spec.transport(name, config, env);
      if (typeof transport === 'string') return transport;
      return new RenderingChannel(name, type, { ...spec, transport }, env.source);
    },
  };
}

export const CHANNEL_TABLE: { readonly [T in ChannelType]: ChannelTypeEntry<T> } = {
  slack: row('slack', {
    config: CHANNEL_SCHEMAS.slack,
    renderers: SLACK_RENDERERS,
    subjectOf: (message: SlackMessage) => message.text.slice(0, 200),
    transport: (name, config) => new SlackSender(name, config.webhookUrl),
  }),
  email: row('email', {
    config: CHANNEL_SCHEMAS.email,
    renderers: EMAIL_RENDERERS,
    subjectOf: (message: EmailMessage) => message.subject,
    transport: (name, config, env) =>
      env.smtpUrl
        ? new EmailSender(name, { smtpUrl: env.smtpUrl, from: config.from, to: config.to })
        : 'an email channel needs SMTP_URL (e.g. smtp://user:pass@host:587)',
  }),
  console: row('console', {
    config: CHANNEL_SCHEMAS.console,
    renderers: EMAIL_RENDERERS,
    subjectOf: (message: EmailMessage) => message.subject,
    transport: (name, _config, env) => new ConsoleSender(name, env.stdout ?? process.stdout),
  }),
  webhook: row('webhook', {
    config: CHANNEL_SCHEMAS.webhook,
    renderers: WEBHOOK_RENDERERS,
    subjectOf: (event: WebhookEvent) => event.type,
    transport: (name, config) => new WebhookSender(name, { url: config.url, secret: config.secret }),
  }),
  teams: row('teams', {
    config: CHANNEL_SCHEMAS.teams,
    renderers: TEAMS_RENDERERS,
    subjectOf: (message: TeamsMessage) => message.summary,
    transport: (name, config) => new TeamsSender(name, config.webhookUrl),
  }),
  discord: row('discord', {
    config: CHANNEL_SCHEMAS.discord,
    renderers: DISCORD_RENDERERS,
    // The content line without its markdown escapes: a subject is read as plain text.
    subjectOf: (message: DiscordMessage) => message.content.replace(/\\(.)/g, '$1').slice(0, 200),
    transport: (name, config) => new DiscordSender(name, config.webhookUrl),
  }),
};

/** The sender of one configured channel, through its type's row; a string says what it lacks. */
export function openChannel<T extends ChannelType>(
  name: string,
  config: ChannelConfigOf<T>,
  env: ChannelEnv,
): ChannelSender | string {
  // `config.type` picks the row of its own type; TypeScript cannot see that through the union.
  const entry = CHANNEL_TABLE[config.type as T] as ChannelTypeEntry<T>;
  return entry.open(name, config, env);
}

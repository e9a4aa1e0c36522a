/** The discord channel type's renderers: every message is a chat document (chat-doc.ts) as an embed. */
import type { Alert } from '../../alerts/types.js';
import { alertChatDoc, digestChatDoc, testChatDoc } from '../chat-doc.js';
import type { AlertRenderers, ChannelRenderers } from '../renderers.js';
import type { DataSource } from '../wording.js';
import { type DiscordMessage, discordMessage } from './embeds.js';

const single = (alert: Alert, source: DataSource) =>
  discordMessage(alertChatDoc({ kind: 'single', alert }, source));

const DISCORD_ALERTS = {
  review: single,
  'rating-drop': single,
  incident: single,
  rank: single,
  reshuffle: single,
  entrants: single,
  listing: single,
  developer: single,
} satisfies AlertRenderers<DiscordMessage>;

export const DISCORD_RENDERERS: ChannelRenderers<DiscordMessage> = {
  alerts: DISCORD_ALERTS,
  group: (notification, source) => discordMessage(alertChatDoc(notification, source)),
  digest: (data, options) => discordMessage(digestChatDoc(data, options)),
  test: (channel, at) => discordMessage(testChatDoc(channel, at)),
};

/** The teams channel type's renderers: every message is a chat document (chat-doc.ts) as a card. */
import type { Alert } from '../../alerts/types.js';
import { alertChatDoc, digestChatDoc, testChatDoc } from '../chat-doc.js';
import type { AlertRenderers, ChannelRenderers } from '../renderers.js';
import type { DataSource } from '../wording.js';
import { type TeamsMessage, teamsMessage } from './card.js';

const single = (alert: Alert, source: DataSource) =>
  teamsMessage(alertChatDoc({ kind: 'single', alert }, source));

const TEAMS_ALERTS = {
  review: single,
  'rating-drop': single,
  incident: single,
  rank: single,
  reshuffle: single,
  entrants: single,
  listing: single,
  developer: single,
} satisfies AlertRenderers<TeamsMessage>;

export const TEAMS_RENDERERS: ChannelRenderers<TeamsMessage> = {
  alerts: TEAMS_ALERTS,
  group: (notification, source) => teamsMessage(alertChatDoc(notification, source)),
  digest: (data, options) => teamsMessage(digestChatDoc(data, options)),
  test: (channel, at) => teamsMessage(testChatDoc(channel, at)),
};

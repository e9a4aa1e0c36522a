/** The teams channel type's renderers: every message is a chat document (chat-doc.ts) as a card. */
import { chatRenderers } from '../chat-doc.js';
import type { ChannelRenderers } from '../renderers.js';
import { type TeamsMessage, teamsMessage } from './card.js';

export const TEAMS_RENDERERS: ChannelRenderers<TeamsMessage> = chatRenderers(teamsMessage);

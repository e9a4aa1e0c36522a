/** The discord channel type's renderers: every message is a chat document (chat-doc.ts) as an embed. */
import { chatRenderers } from '../chat-doc.js';
import type { ChannelRenderers } from '../renderers.js';
import { type DiscordMessage, discordMessage } from './embeds.js';

export const DISCORD_RENDERERS: ChannelRenderers<DiscordMessage> = chatRenderers(discordMessage);

/**
 * The rendering kit: every message reviewwatch sends, as Slack Block Kit, email (HTML and text) and the
 * console's text. Alerts render from `Notification`s, the weekly digest from `DigestData`.
 */
export { emailSubject, renderEmail } from './alert/alert-email.js';
export { MAX_EMAIL_REVIEW_CHARACTERS } from './alert/alert-email-doc.js';
export { renderSlack, type SlackRenderOptions } from './alert/alert-slack.js';
export { notificationPriority } from './alert/alert-wording.js';
export {
  DISCORD_RENDERERS,
  EMAIL_RENDERERS,
  SLACK_RENDERERS,
  TEAMS_RENDERERS,
  WEBHOOK_RENDERERS,
} from './channels.js';
export { alertChatDoc, type ChatDoc, digestChatDoc } from './chat-doc.js';
export { digestSubject, renderDigestEmail } from './digest/digest-email.js';
export { renderDigestSlack } from './digest/digest-slack.js';
export { coverageNote, type DigestRenderOptions } from './digest/digest-wording.js';
export {
  DISCORD_LIMITS,
  type DiscordMessage,
  discordMessage,
  type Embed,
  embedCharacters,
  escapeDiscord,
  fitEscaped,
} from './discord/embeds.js';
export type { EmailMessage } from './email-blocks.js';
export { cleanText, escapeHtml, escapeMrkdwn, oneLine, stars, truncate } from './escape.js';
export {
  type AlertRenderers,
  type ChannelRenderers,
  type GroupNotification,
  renderAlert,
  renderWith,
} from './renderers.js';
export {
  type ActionsBlock,
  type ButtonElement,
  type ContextBlock,
  type DividerBlock,
  type HeaderBlock,
  type MrkdwnObject,
  type PlainTextObject,
  type SectionBlock,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  slackBlocksSize,
} from './slack-blocks.js';
export {
  type AdaptiveCard,
  escapeTeams,
  TEAMS_LIMITS,
  type TeamsMessage,
  teamsMessage,
  teamsMessageBytes,
} from './teams/card.js';
export {
  WEBHOOK_EVENT_OF_KIND,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventType,
} from './webhook/events.js';
export { type DataSource, SIMULATED_NOTE, SIMULATED_TAG } from './wording.js';

/**
 * The renderers of each kind of message a channel type posts (renderers.ts, ChannelRenderers): the
 * render column of the channel table (notify/channel-types.ts). A new channel type adds its set here.
 */
import { EMAIL_ALERTS, renderEmailGroup } from './alert/alert-email.js';
import { renderSlackGroup, SLACK_ALERTS } from './alert/alert-slack.js';
import { renderDigestEmail } from './digest/digest-email.js';
import { renderDigestSlack } from './digest/digest-slack.js';
import type { EmailMessage } from './email-blocks.js';
import type { ChannelRenderers } from './renderers.js';
import type { SlackMessage } from './slack-blocks.js';
import { emailTestMessage, slackTestMessage } from './test-message.js';

export { DISCORD_RENDERERS } from './discord/renderers.js';
export { TEAMS_RENDERERS } from './teams/renderers.js';
export { WEBHOOK_RENDERERS } from './webhook/events.js';

/** Block Kit; the digest as its compact summary. */
export const SLACK_RENDERERS: ChannelRenderers<SlackMessage> = {
  alerts: SLACK_ALERTS,
  group: renderSlackGroup,
  digest: renderDigestSlack,
  test: slackTestMessage,
};

/** HTML and text email; the digest in full. The console prints these messages' text. */
export const EMAIL_RENDERERS: ChannelRenderers<EmailMessage> = {
  alerts: EMAIL_ALERTS,
  group: renderEmailGroup,
  digest: renderDigestEmail,
  test: emailTestMessage,
};

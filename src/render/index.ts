export { type EmailMessage, emailSubject, renderEmail } from './alert/alert-email.js';
export { MAX_EMAIL_REVIEW_CHARACTERS } from './alert/alert-email-doc.js';
export {
  type ActionsBlock,
  type ButtonElement,
  type ContextBlock,
  type DividerBlock,
  type HeaderBlock,
  type MrkdwnObject,
  type PlainTextObject,
  renderSlack,
  type SectionBlock,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  type SlackRenderOptions,
  slackBlocksSize,
} from './alert/alert-slack.js';
export {
  type DigestEmail,
  type DigestEmailOptions,
  digestSubject,
  renderDigestEmail,
} from './digest/digest-email.js';
export {
  type DigestSlackMessage,
  type DigestSlackOptions,
  renderDigestSlack,
} from './digest/digest-slack.js';
export { cleanText, escapeHtml, escapeMrkdwn, oneLine, stars, truncate } from './escape.js';

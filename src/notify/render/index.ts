export { type EmailMessage, emailSubject, renderEmail } from './email.js';
export { MAX_EMAIL_REVIEW_CHARACTERS } from './email-doc.js';
export { cleanText, escapeHtml, escapeMrkdwn, oneLine, stars, truncate } from './escape.js';
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
} from './slack.js';

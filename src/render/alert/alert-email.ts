import type { Alert, Notification } from '../../alerts/types.js';
import { plural } from '../../util/plural.js';
import type { EmailMessage } from '../email-blocks.js';
import { oneLine, stars } from '../escape.js';
import type { AlertRenderers, GroupNotification } from '../renderers.js';
import { appTag, type DataSource, excerpt, reviewContent, tagSimulated } from '../wording.js';
import { emailDocOf } from './alert-email-doc.js';
import { emailHtml } from './alert-email-html.js';
import { emailText } from './alert-email-text.js';
import { incidentShort, lateMark, ratingChange } from './alert-wording.js';
import { marketSubject } from './market-wording.js';
import { spikeShort } from './spike-wording.js';

/** Room for the app tag and the review's start; inboxes show less than this anyway. */
const MAX_SUBJECT = 200;
const SUBJECT_EXCERPT = 40;

/**
 * Subjects triage at a glance in an inbox list: what happened, to which app, in its first words. They
 * are one line whatever the review holds: a CR/LF reaching a mail header is header injection.
 */
export function emailSubject(notification: Notification, source: DataSource = {}): string {
  let subject: string;
  if (notification.kind === 'group') {
    const { app, alerts, incident, spike } = notification;
    subject = incident
      ? `⚠ ${appTag(app)}: ${incidentShort(incident)}`
      : spike
        ? `📈 ${appTag(app)}: ${spikeShort(spike)}`
        : `★ ${appTag(app)}: ${plural(alerts.length, 'new low review')}`;
  } else {
    const { alert } = notification;
    switch (alert.kind) {
      case 'review': {
        const content = reviewContent(alert.review);
        const said = content === '' ? '(no text)' : `"${excerpt(content, SUBJECT_EXCERPT)}"`;
        subject = `${stars(alert.review.rating)} ${appTag(alert.app)}${lateMark(alert)}: ${said}`;
        break;
      }
      case 'rating-drop': {
        const { from, to } = ratingChange(alert);
        subject = `▼ ${appTag(alert.app)} rating ${from} → ${to}`;
        break;
      }
      case 'incident':
        subject = `⚠ ${appTag(alert.app)}: ${incidentShort(alert)}`;
        break;
      case 'topic-spike':
        subject = `📈 ${appTag(alert.app)}: ${spikeShort(alert)}`;
        break;
      default:
        subject = marketSubject(alert);
    }
  }
  return tagSimulated(oneLine(subject), source, MAX_SUBJECT);
}

export function renderEmail(notification: Notification, source: DataSource = {}): EmailMessage {
  const doc = emailDocOf(notification, source);
  return { subject: emailSubject(notification, source), html: emailHtml(doc), text: emailText(doc) };
}

function emailOfAlert(alert: Alert, source: DataSource): EmailMessage {
  return renderEmail({ kind: 'single', alert }, source);
}

/**
 * Email's renderer of each alert kind. They share one document builder (alert-email-doc.ts) whose choices
 * over the kinds are exhaustive themselves: a kind it does not handle fails to compile there.
 */
export const EMAIL_ALERTS = {
  review: emailOfAlert,
  'rating-drop': emailOfAlert,
  incident: emailOfAlert,
  'topic-spike': emailOfAlert,
  rank: emailOfAlert,
  reshuffle: emailOfAlert,
  entrants: emailOfAlert,
  listing: emailOfAlert,
  developer: emailOfAlert,
} satisfies AlertRenderers<EmailMessage>;

export function renderEmailGroup(notification: GroupNotification, source: DataSource): EmailMessage {
  return renderEmail(notification, source);
}

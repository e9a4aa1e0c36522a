/**
 * The digest's "What reviewers talk about" section (digest/topics.ts): each app's top topics with their
 * arrows, the phrases emerging in its low reviews with one quote each, and the own apps' topics against
 * the competitors'. Plain text wording here, then the section for HTML, text and Slack; app names,
 * phrases and quotes come from the marketplace and are escaped by each.
 */
import type { DigestTopic, DigestTopicApp, DigestTopics, TopicVersus } from '../../digest/topics.js';
import { plural } from '../../util/plural.js';
import { COLORS, cell, colored, dataTable, heading, muted, paragraph, row } from '../email-blocks.js';
import { escapeHtml, escapeMrkdwn, oneLine, truncate } from '../escape.js';
import { appTitle, percent } from './digest-wording.js';

export const TOPICS_TITLE = 'What reviewers talk about';
const MAX_QUOTE = 160;
const MAX_PHRASE = 60;

/** "▲ up 3x", "▲ new", "▼ down 2.5x", "→" (no change that means something). */
export function topicArrow(topic: DigestTopic): string {
  if (topic.direction === 'flat') return '→';
  if (topic.ratio === undefined) return '▲ new';
  const factor = topic.direction === 'up' ? topic.ratio : 1 / topic.ratio;
  const shown = factor >= 10 ? Math.round(factor) : Math.round(factor * 10) / 10;
  return `${topic.direction === 'up' ? '▲ up' : '▼ down'} ${shown}x`;
}

/** "billing 50% ▲ up 3x" */
export function topicLine(topic: DigestTopic): string {
  return `${topic.name} ${percent(topic.share)} ${topicArrow(topic)}`;
}

/** `'klaviyo' (5 low reviews): "The Klaviyo sync stopped…"` */
export function phraseLine(phrase: DigestTopicApp['phrases'][number]): string {
  const quote = truncate(oneLine(phrase.quote), MAX_QUOTE);
  const said = `'${truncate(oneLine(phrase.phrase), MAX_PHRASE)}' (${plural(phrase.reviews, 'low review')})`;
  return quote === '' ? said : `${said}: "${quote}"`;
}

/** "billing: 50% of Bundle Builder's reviews, 22% of ShopBundles Pro's" */
export function versusLine(versus: TopicVersus): string {
  const shares = versus.apps
    .filter((a) => a.share !== null)
    .map((a, i) => `${percent(a.share ?? 0)} of ${appTitle(a)}'s${i === 0 ? ' reviews' : ''}`);
  return `${versus.topic}: ${shares.join(', ')}`;
}

function arrowColor(topic: DigestTopic): string | undefined {
  if (topic.direction === 'up') return COLORS.down;
  if (topic.direction === 'down') return COLORS.up;
  return undefined;
}

/** Apps with something to say: reviews in the period. */
function shown(topics: DigestTopics): DigestTopicApp[] {
  return topics.apps.filter((a) => a.reviews > 0);
}

/** The HTML rows of the section (escaped). */
export function topicsHtmlRows(topics: DigestTopics): string[] {
  const rows = [row(heading(TOPICS_TITLE, 3))];
  for (const app of shown(topics)) {
    const list =
      app.topics.length === 0
        ? muted('No topic in its reviews.')
        : app.topics
            .map(
              (t) =>
                `${escapeHtml(`${t.name} ${percent(t.share)}`)} ${colored(topicArrow(t), arrowColor(t))}`,
            )
            .join(' · ');
    const phrases = app.phrases.map((p) => `<li style="margin:0 0 2px;">${escapeHtml(phraseLine(p))}</li>`);
    rows.push(
      row(
        `<div style="font-size:14px;font-weight:bold;margin:0 0 4px;">${escapeHtml(appTitle(app))}: ${muted(plural(app.reviews, 'review'))}</div>` +
          paragraph(list, 'font-size:14px;') +
          (phrases.length === 0
            ? ''
            : `<div style="font-size:14px;margin:6px 0 0;">Emerging in low reviews:<ul style="margin:4px 0 0;padding-left:20px;">${phrases.join('')}</ul></div>`),
      ),
    );
  }
  if (topics.versus.length > 0) {
    const apps = topics.versus[0]?.apps ?? [];
    rows.push(
      row(
        `<div style="font-size:14px;font-weight:bold;margin:0 0 4px;">Your apps against competitors</div>` +
          dataTable(
            [{ text: 'Topic' }, ...apps.map((a) => ({ text: appTitle(a), align: 'right' as const }))],
            topics.versus.map(
              (v) =>
                `<tr>${cell(escapeHtml(v.topic))}${v.apps
                  .map((a) => cell(a.share === null ? muted('—') : percent(a.share), 'text-align:right;'))
                  .join('')}</tr>`,
            ),
          ),
      ),
    );
  }
  return rows;
}

/** The text section. */
export function topicsText(topics: DigestTopics): string {
  const lines = [TOPICS_TITLE.toUpperCase()];
  for (const app of shown(topics)) {
    lines.push('', `${appTitle(app)} (${plural(app.reviews, 'review')})`);
    lines.push(
      `  ${app.topics.length === 0 ? 'no topic in its reviews' : app.topics.map(topicLine).join(' · ')}`,
    );
    for (const p of app.phrases) lines.push(`  emerging: ${phraseLine(p)}`);
  }
  if (topics.versus.length > 0) {
    lines.push('', 'Your apps against competitors:');
    for (const v of topics.versus) lines.push(`  ${versusLine(v)}`);
  }
  return lines.join('\n');
}

/** The Slack entries (escaped mrkdwn), one per app and one for the comparison. */
export function topicsSlackEntries(topics: DigestTopics): string[] {
  const entries = shown(topics).map((app) => {
    const list = app.topics.length === 0 ? 'no topic in its reviews' : app.topics.map(topicLine).join(' · ');
    const phrases = app.phrases.map((p) => `\n  _emerging:_ ${escapeMrkdwn(phraseLine(p))}`).join('');
    return `• *${escapeMrkdwn(appTitle(app))}* (${plural(app.reviews, 'review')}): ${escapeMrkdwn(list)}${phrases}`;
  });
  if (topics.versus.length > 0) {
    entries.push(
      `_Your apps against competitors:_\n${topics.versus.map((v) => `• ${escapeMrkdwn(versusLine(v))}`).join('\n')}`,
    );
  }
  return entries;
}

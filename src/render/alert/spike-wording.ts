/**
 * What a topic spike says, in plain unescaped text: its headline, its facts, its quotes and what changed
 * around it. Slack, email, the console and the webhook's title word it from here; each escapes it.
 */
import type { SpikeContext, SpikeQuote, TopicSpikeAlert } from '../../alerts/types.js';
import { plural } from '../../util/plural.js';
import { oneLine, stars, truncate } from '../escape.js';
import { appName, type Fact, formatTimestamp, priorityLabel } from '../wording.js';

const MAX_NAME = 60;
const MAX_QUOTE = 300;
const MAX_CONTEXT = 200;

/** "integrations" or "'klaviyo'": a phrase is quoted, a topic is a name. */
export function spikeSubject(alert: TopicSpikeAlert): string {
  const name = truncate(oneLine(alert.spike.name), MAX_NAME);
  return alert.spike.type === 'phrase' ? `'${name}'` : name;
}

/** "about integrations (and bugs): 'klaviyo'" */
function about(alert: TopicSpikeAlert): string {
  const phrases = alert.spike.phrases.map((p) => `'${truncate(oneLine(p), MAX_NAME)}'`).join(', ');
  const also = (alert.spike.also ?? []).map((t) => truncate(oneLine(t), MAX_NAME)).join(', ');
  return `about ${spikeSubject(alert)}${also === '' ? '' : ` (and ${also})`}${phrases === '' ? '' : `: ${phrases}`}`;
}

function hours(windowHours: number): string {
  return `${Math.round(windowHours * 10) / 10} h`;
}

/** "Topic spike: 6 low reviews of Acme about integrations: 'klaviyo' within 24 h" */
export function spikeHeadline(alert: TopicSpikeAlert): string {
  const { count, windowHours } = alert.spike;
  return `Topic spike: ${plural(count, 'low review')} of ${appName(alert.app)} ${about(alert)} within ${hours(windowHours)}`;
}

/** The short form subjects use: "6 low reviews about integrations in 24 h". */
export function spikeShort(alert: TopicSpikeAlert): string {
  return `${plural(alert.spike.count, 'low review')} ${about(alert)} in ${hours(alert.spike.windowHours)}`;
}

/** "0.2 a day over the 28 days before": the rate the spike is measured against. */
export function spikeUsual(alert: TopicSpikeAlert): string {
  const { expected, windowHours, baselineDays } = alert.spike;
  const perDay = (expected * 24) / Math.max(windowHours, 1);
  return `${Math.round(perDay * 10) / 10} a day over the ${baselineDays} days before`;
}

export function spikeFacts(alert: TopicSpikeAlert): Fact[] {
  const { spike } = alert;
  return [
    { label: spike.type === 'topic' ? 'Topic' : 'Phrase', value: spikeSubject(alert) },
    { label: 'Reviews', value: `${spike.count} by ${plural(spike.reviewers, 'reviewer')}` },
    { label: 'Usually', value: spikeUsual(alert) },
    { label: 'Since', value: formatTimestamp(spike.since) },
    { label: 'Priority', value: priorityLabel(alert.priority) },
    ...(alert.incident
      ? [
          {
            label: 'Possible incident',
            value: `${plural(alert.incident.count, 'low review')} within ${hours(alert.incident.windowHours)}`,
          },
        ]
      : []),
  ];
}

/** `★☆☆☆☆ Jane's Shop: "…the Klaviyo sync stopped…"` */
export function quoteLine(quote: SpikeQuote): { heading: string; text: string } {
  const who = truncate(oneLine(quote.reviewer), 100) || 'Anonymous';
  return { heading: `${stars(quote.rating)} ${who}`, text: truncate(oneLine(quote.text), MAX_QUOTE) };
}

const CONTEXT_WORDS: Record<SpikeContext['what'], string> = {
  listing: 'Listing',
  'rating-drop': 'Rating',
  competitor: 'Competitor',
};

/** "Listing, Nov 25: "Pro": price up $19/month → $29/month" */
export function contextLine(item: SpikeContext): string {
  const text = truncate(oneLine(item.text), MAX_CONTEXT);
  const app = truncate(oneLine(item.app), MAX_NAME);
  const who = item.what === 'competitor' ? ` ${app}` : '';
  return `${CONTEXT_WORDS[item.what]}${who} (${formatTimestamp(item.at)}): ${text}`;
}

/** The lines under "What changed around it", or one saying nothing did. */
export function contextLines(alert: TopicSpikeAlert): string[] {
  if (alert.context.length === 0)
    return ['No listing change, rating drop or competitor move in the week before.'];
  return alert.context.map(contextLine);
}

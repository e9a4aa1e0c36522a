/**
 * The topic spike and what a burst shares, on every channel type: Slack, email (html and text), the
 * console (the email's text) and the webhook. Untrusted text (quotes, reviewers, a competitor's name,
 * phrases) is escaped wherever markup reads it.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Notification, ReviewAlert } from '../../../src/alerts/types.js';
import { openChannel } from '../../../src/notify/channel-types.js';
import {
  EMAIL_RENDERERS,
  renderWith,
  SLACK_RENDERERS,
  WEBHOOK_RENDERERS,
} from '../../../src/render/index.js';
import { app, group, incident, reviewAlert, topicSpike } from '../../fixtures/alert-sample.js';

async function printOnConsole(notification: Notification): Promise<string> {
  let out = '';
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  const sender = openChannel('terminal', { type: 'console', minPriority: 'low' }, { stdout, source: {} });
  if (typeof sender === 'string') throw new Error(sender);
  await sender.send(notification);
  return out;
}

const spike: Notification = { kind: 'single', alert: topicSpike() };

describe('a topic spike', () => {
  it('on Slack: what spiked, the usual rate, its quotes and what changed, escaped', () => {
    const message = renderWith(SLACK_RENDERERS, spike, {});
    const json = JSON.stringify(message.blocks);
    expect(message.text).toContain("Topic spike: 6 low reviews of My App about integrations: 'klaviyo'");
    expect(json).toContain('*Usually*\\n0.2 a day over the 28 days before');
    expect(json).toContain('The Klaviyo sync stopped &lt;@U123&gt; overnight');
    expect(json).not.toContain('<@U123>');
    expect(json).toContain('Shop &lt;b&gt;One&lt;/b&gt;');
    expect(json).toContain('What changed around it:');
    expect(json).toContain('price up $19/month → $29/month');
    expect(json).toContain('Competitor Rival &amp; Co');
  });

  it('in email: the subject, the quotes and the context in html and text, escaped in html', () => {
    const mail = renderWith(EMAIL_RENDERERS, spike, {});
    expect(mail.subject).toBe("📈 my-app: 6 low reviews about integrations: 'klaviyo' in 24 h");
    expect(mail.text).toContain('The Klaviyo sync stopped <@U123> overnight');
    expect(mail.text).toContain('What changed around it:');
    expect(mail.text).toContain('New plan <script>');
    expect(mail.html).toContain('New plan &lt;script&gt;');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('Shop &lt;b&gt;One&lt;/b&gt;');
  });

  it('on the console, as the email says it; as a webhook event with its fields', async () => {
    const printed = await printOnConsole(spike);
    expect(printed).toContain("Topic spike: 6 low reviews of My App about integrations: 'klaviyo'");
    expect(printed).toContain('Klaviyo lists are empty since the update');
    const event = renderWith(WEBHOOK_RENDERERS, spike, {});
    expect(event.type).toBe('topic.spike');
    expect(event.data).toMatchObject({
      spike: { type: 'topic', name: 'integrations', count: 6, phrases: ['klaviyo'], also: [] },
      quotes: [{ reviewer: 'Shop <b>One</b>' }, { reviewer: 'Shop Two' }],
      incident: null,
    });
  });

  it('says a phrase quoted, the topics told with it, the incident it says, and a quiet week', () => {
    const alert = {
      ...topicSpike({ type: 'phrase', name: 'dark *mode*', phrases: [], also: ['usability'] }),
      context: [],
      incident: { count: 7, windowHours: 1 },
    };
    const message = renderWith(SLACK_RENDERERS, { kind: 'single', alert }, {});
    expect(message.text).toContain("about 'dark *mode*' (and usability) within 24 h");
    const mail = renderWith(EMAIL_RENDERERS, { kind: 'single', alert }, {});
    expect(mail.text).toContain('Possible incident: 7 low reviews within 1 h');
    expect(mail.text).toContain('No listing change, rating drop or competitor move in the week before.');
  });
});

describe('what a burst shares', () => {
  const about = (i: number) =>
    i < 5 ? `The Klaviyo sync failed again, review ${i}` : `Charged twice, review ${i}`;
  const withTopics = (alerts: ReviewAlert[]) =>
    alerts.map((a, i) => ({ ...a, topics: i < 5 ? ['integrations', 'bugs'] : ['billing'] }));

  it('names the topic and phrase most of a group share, on Slack, email and the webhook', () => {
    const g = group(6, about);
    const grouped: Notification = { ...g, alerts: withTopics(g.alerts) };
    const slack = JSON.stringify(renderWith(SLACK_RENDERERS, grouped, {}));
    expect(slack).toContain("What they share:* 5 of 6 about bugs: 'klaviyo sync failed'");
    const mail = renderWith(EMAIL_RENDERERS, grouped, {});
    expect(mail.text).toContain("5 of 6 about bugs: 'klaviyo sync failed'");
    expect(mail.html).toContain('5 of 6 about bugs: &#39;klaviyo sync failed&#39;');
    const event = renderWith(WEBHOOK_RENDERERS, grouped, {});
    expect(event.data.about).toBe("5 of 6 about bugs: 'klaviyo sync failed'");
  });

  it('says nothing when they share nothing, or when the alerts predate topics', () => {
    const mixed = group(4, (i) => ['Crashes', 'Charged twice', 'Slow', 'No reply'][i] ?? '');
    const apart = mixed.alerts.map((a, i) => ({
      ...a,
      topics: [['bugs'], ['billing'], ['performance'], ['support']][i] ?? [],
    }));
    expect(renderWith(EMAIL_RENDERERS, { ...mixed, alerts: apart }, {}).text).not.toContain(' about ');
    expect(renderWith(EMAIL_RENDERERS, group(6, about), {}).text).not.toContain('What they share');
  });

  it("puts an incident's shared topic in its message", () => {
    const alert = { ...incident(4), about: "4 of 4 about integrations: 'klaviyo'" };
    const slack = renderWith(SLACK_RENDERERS, { kind: 'single', alert }, {});
    expect(slack.text).toContain("4 of 4 about integrations: 'klaviyo'");
    const mail = renderWith(EMAIL_RENDERERS, { kind: 'single', alert }, {});
    expect(mail.text).toContain("What they share: 4 of 4 about integrations: 'klaviyo'");
    expect(renderWith(WEBHOOK_RENDERERS, { kind: 'single', alert }, {}).data.about).toBe(alert.about);
    expect(reviewAlert().app).toBe(app);
  });
});

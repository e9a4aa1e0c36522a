import { describe, expect, it } from 'vitest';
import type { Notification } from '../../../src/alerts/types.js';
import {
  alertChatDoc,
  emailSubject,
  renderEmail,
  renderSlack,
  SLACK_LIMITS,
  slackBlocksSize,
} from '../../../src/render/index.js';
import { app, incident, reviewAlert, topicSpike } from '../../fixtures/alert-sample.js';

/** An incident of `count` reviews whose last `riding` ride in its message, each with its score and why. */
function carrying(count: number, riding: number): Notification {
  const wave = incident(count);
  const alerts = wave.reviews.slice(count - riding).map((r, i) =>
    reviewAlert(
      { ...r },
      {
        score: 50 + i,
        priority: 'medium',
        reasons: ['1 star', `mentions bugs: broken <${i}>`],
      },
    ),
  );
  return { kind: 'group', app, alerts, incident: { ...wave, about: '3 of 4 about bugs' } };
}

describe('a possible incident carrying its poll’s review alerts', () => {
  it('leads with the incident on Slack, the new reviews with their why, the earlier marked', () => {
    const message = renderSlack(carrying(4, 2));
    const body = JSON.stringify(message.blocks);
    expect(message.text).toMatch(/^⚠ Possible incident: 4 low reviews of My App within 24 h/);
    expect(body).toContain('What they share:* 3 of 4 about bugs');
    expect(body.match(/_Why: /g)).toHaveLength(2);
    expect(body).toContain('broken &lt;0&gt;');
    expect(body.match(/found earlier/g)).toHaveLength(2);
    for (let i = 0; i < 4; i++) expect(body).toContain(`Checkout broken ${i}.`);
  });

  it('fits Slack’s limits with twenty riding and more listed, saying how many are left out', () => {
    const message = renderSlack(carrying(60, 20), { inboxUrl: 'https://rw.example/', simulated: true });
    expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    expect(slackBlocksSize(message.blocks)).toBeLessThanOrEqual(SLACK_LIMITS.message);
    const body = JSON.stringify(message.blocks);
    // Every riding review is shown (each is marked sent with the message); earlier ones are cut first.
    for (let i = 40; i < 60; i++) expect(body).toContain(`Checkout broken ${i}.`);
    expect(body).toMatch(/… and \d+ more reviews/);
  });

  it('is an incident in an email subject and body, and in a chat card', () => {
    const notification = carrying(4, 2);
    expect(emailSubject(notification)).toBe('⚠ my-app: 4 low reviews in 24 h');
    const { text } = renderEmail(notification);
    expect(text).toContain('Possible incident: 4 low reviews of My App within 24 h');
    expect(text.match(/found earlier/g)).toHaveLength(2);
    const card = alertChatDoc(notification, {});
    expect(card.title).toBe('⚠ Possible incident: 4 low reviews of My App within 24 h');
    expect(card.items.filter((item) => item.details.includes('Why: '))).toHaveLength(2);
    expect(card.items.filter((item) => item.details.includes('found earlier'))).toHaveLength(2);
  });

  it('links each listed review to the inbox in email', () => {
    const source = { inboxUrl: 'https://rw.example/' };
    const review = (id: number) => `https://rw.example/apps/my-app/reviews/${id}`;
    const { text, html } = renderEmail(carrying(4, 2), source);
    for (const id of [100, 101, 102, 103]) {
      expect(text).toContain(`Open in the inbox: ${review(id)}`);
      expect(html).toContain(`<a href="${review(id)}">Open in the inbox</a>`);
    }
  });
});

/** The fixture's spike with two of its reviews new in the poll: one of them also among its quotes. */
function spikeCarrying(): Notification {
  const spike = { ...topicSpike(), reviewIds: ['501', '502', '503', '504', '505', '506'] };
  const alerts = [
    reviewAlert(
      { reviewId: '501', reviewer: 'Shop <b>One</b>', content: 'The Klaviyo sync stopped <@U123> overnight' },
      { score: 58, priority: 'medium', reasons: ['1 star', 'mentions integrations: klaviyo'] },
    ),
    reviewAlert(
      { reviewId: '506', reviewer: 'Shop Six', content: 'Klaviyo connection keeps failing' },
      { score: 91, priority: 'critical', reasons: ['1 star', 'mentions data-loss: lost'] },
    ),
  ];
  return { kind: 'group', app, alerts, spike };
}

describe('a topic spike carrying its poll’s review alerts', () => {
  it('leads with the spike on Slack, then the new reviews with their why, the other quotes, what changed', () => {
    const message = renderSlack(spikeCarrying());
    const body = JSON.stringify(message.blocks);
    expect(message.text).toMatch(/^📈 Topic spike: 6 low reviews of My App about integrations/);
    expect(message.text).toContain('new in this poll: 1 critical · 1 medium');
    expect(body).toContain('*New in this poll:* 1 critical · 1 medium, most severe first');
    expect(body.match(/_Why: /g)).toHaveLength(2);
    // Most severe first; the rider also quoted is said once, the other quote after the riders.
    expect(body.indexOf('Shop Six')).toBeLessThan(body.indexOf('Shop &lt;b&gt;One'));
    expect(body.match(/The Klaviyo sync stopped/g)).toHaveLength(1);
    expect(body.indexOf('Shop &lt;b&gt;One')).toBeLessThan(body.indexOf('Klaviyo lists are empty'));
    expect(body).toContain('What changed around it');
    expect(body).not.toContain('<@U123>');
  });

  it('is a spike in an email subject and body, and in a chat card, as urgent as its most urgent rider', () => {
    const notification = spikeCarrying();
    expect(emailSubject(notification)).toMatch(/^📈 my-app: 6 low reviews about integrations/);
    const { text } = renderEmail(notification);
    expect(text).toContain('New in this poll: 1 critical · 1 medium, most severe first');
    expect(text.match(/The Klaviyo sync stopped/g)).toHaveLength(1);
    expect(text).toContain('Klaviyo lists are empty since the update');
    const card = alertChatDoc(notification, {});
    expect(card.title).toMatch(/^📈 Topic spike: 6 low reviews/);
    expect(card.priority).toBe('critical');
    expect(card.items.filter((item) => item.details.includes('Why: '))).toHaveLength(2);
    expect(card.sections.map((s) => s.label)).toContain('What changed around it');
  });
});

/**
 * The topic-spike alert end to end: the real worker polls the simulator over HTTP and delivers to a fake
 * Slack webhook and a real SMTP server. A wave about one integration makes one spike message per
 * channel, with its quotes and the rating drop before it; noise makes none; a later review of the same
 * wave and a retried poll add none.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { topicSpikeAlerts } from '../../src/alerts/topic-spike.js';
import type { TopicSpikeAlert } from '../../src/alerts/types.js';
import { DEFAULT_SCORING_RULES } from '../../src/scoring/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { insertAlert } from '../../src/store/outbox.js';
import { alerts, reviews } from '../../src/store/schema.js';
import { DEFAULT_SPIKE_RULE } from '../../src/topics/index.js';
import { type Harness, startHarness } from '../helpers/runtime.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';
import { type FakeSmtp, startFakeSmtp } from '../helpers/smtp.js';

let sim: Simulator;
let slack: FakeSlack;
let smtp: FakeSmtp;
let h: Harness;

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: ['shop', 'rival'], maxReviewsPerApp: 10 });
});
afterAll(() => sim.close());
beforeEach(async () => {
  sim.controls.reset();
  slack = await startFakeSlack();
  smtp = await startFakeSmtp();
});
afterEach(async () => {
  await h?.close();
  await slack.close();
  await smtp.close();
});

const config = () => ({
  catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 200 },
  poll: { baselinePages: 3, backoff: '100ms' },
  apps: [
    { handle: 'shop', notify: ['support', 'mail'] },
    { handle: 'rival', role: 'competitor', notify: ['support', 'mail'] },
  ],
  // No incident and no grouping: what is counted here is the spike.
  alerts: { lowRating: { maxRating: 2 }, throttle: { max: 100 }, incident: { count: 50 }, groupAbove: 50 },
  channels: {
    support: { type: 'slack', webhookUrl: slack.url },
    mail: { type: 'email', from: 'reviewwatch@example.com', to: ['support@example.com'] },
  },
});

const WAVE = [
  'Klaviyo sync stopped working, my flows are empty <!channel>',
  'Since yesterday the Klaviyo integration does not sync any orders',
  'Klaviyo lists not updating anymore. Useless.',
  'The klaviyo sync broke after the update, support is silent',
  'Nothing reaches Klaviyo now, we lost a whole campaign',
  'klaviyo connection keeps failing',
];

function setSummary(handle: string, ones: number) {
  const counts = { 5: 40, 4: 9, 3: 0, 2: 0, 1: 1 + ones };
  sim.controls.setSummary(
    handle,
    Object.entries(counts).map(([label, count]) => ({ label, count })),
  );
}

async function baseline() {
  setSummary('shop', 0);
  setSummary('rival', 0);
  h = await startHarness(config(), { SMTP_URL: smtp.url });
  await h.poll(['shop', 'rival']);
}

async function pollAndSettle(handles: string[]) {
  const results = await h.poll(handles);
  await h.settle(results.flatMap((r) => r.deliveryIds));
}

function wave(texts: readonly string[], from = 0) {
  return texts.map((text, i) => ({
    rating: (i % 2) + 1,
    reviewer: `Store ${from + i}`,
    review_content: text,
  }));
}

function spikeRows() {
  return h.worker.store.db.select().from(alerts).where(eq(alerts.kind, 'topic-spike')).all();
}

const spikeBodies = () =>
  slack
    .accepted()
    .map((c) => JSON.stringify(c.body))
    .filter((b) => b.includes('Topic spike'));

describe('a topic spike', () => {
  it('goes out once per channel with its quotes and the rating drop before it, escaped', async () => {
    await baseline();
    // Three one-star ratings without text: a rating drop, said as a message of its own.
    setSummary('shop', 3);
    await pollAndSettle(['shop']);
    sim.controls.addReviews('shop', wave(WAVE));
    await pollAndSettle(['shop']);

    expect(spikeRows()).toHaveLength(1);
    const [body] = spikeBodies();
    expect(spikeBodies()).toHaveLength(1);
    // The bugs the same reviews mention are told in it, not in a message of their own.
    expect(body).toContain("6 low reviews of Shop about integrations (and bugs): 'klaviyo' within 24 h");
    expect(body).toContain('Klaviyo sync stopped working');
    expect(body).toContain('Rating');
    expect(body).toMatch(/Rating \([^)]*\): fell from 4\.74 to 4\.53/);
    // A review's markup reaches no one: Slack's mention is escaped.
    expect(body).not.toContain('<!channel>');
    const mails = smtp.mails.filter((m) => /about integrations/.test(m.subject ?? ''));
    expect(mails).toHaveLength(1);
    expect(mails[0]?.text).toContain('What changed around it:');
    expect(mails[0]?.html).toContain('&lt;!channel&gt;');

    // A seventh review of the same wave, next poll: its review alert, no second spike.
    sim.controls.addReviews('shop', wave(['Klaviyo still broken, day two'], 6));
    await pollAndSettle(['shop']);
    expect(spikeRows()).toHaveLength(1);
    expect(spikeBodies()).toHaveLength(1);
    expect(slack.accepted().some((c) => JSON.stringify(c.body).includes('Klaviyo still broken'))).toBe(true);
  });

  it('fires at the poll whose review completes the wave, counting those earlier polls stored', async () => {
    await baseline();
    // Four of the wave: one short of a spike (the check stops at its count of the window's low reviews).
    sim.controls.addReviews('shop', wave(WAVE.slice(0, 4)));
    await pollAndSettle(['shop']);
    expect(spikeRows()).toHaveLength(0);
    // The fifth, a poll later: with the four before it, a spike.
    sim.controls.addReviews('shop', wave(WAVE.slice(4, 5), 4));
    await pollAndSettle(['shop']);
    expect(spikeRows()).toHaveLength(1);
    expect(spikeBodies()[0]).toContain('5 low reviews of Shop about integrations');
  });

  it('is reproduced by a retried poll under the same dedupe key, which the outbox refuses twice', async () => {
    await baseline();
    sim.controls.addReviews('shop', wave(WAVE));
    await pollAndSettle(['shop']);
    const [stored] = spikeRows();
    if (stored === undefined) throw new Error('the wave raised no spike');
    // The same poll run again over the same stored reviews: what a retry after a crash does.
    const { db } = h.worker.store;
    const fresh = new Set(
      db
        .select({ id: reviews.id })
        .from(reviews)
        .where(eq(reviews.fromBaseline, false))
        .all()
        .map((r) => r.id),
    );
    const check = {
      handle: 'shop',
      app: () => (stored.payload as TopicSpikeAlert).app,
      at: stored.createdAt,
      maxRating: 2,
      taxonomy: DEFAULT_SCORING_RULES.topics,
      fresh,
      competitors: ['rival'],
      names: new Map<string, string>(),
    };
    // Its cooldown aside, the retry finds the same spike under the same key, which the outbox refuses.
    const again = topicSpikeAlerts(db, { ...check, rule: { ...DEFAULT_SPIKE_RULE, cooldownMs: 0 } });
    expect(again.map((s) => s.dedupeKey)).toEqual([stored.dedupeKey]);
    const id = insertAlert(db, {
      appHandle: 'shop',
      kind: 'topic-spike',
      dedupeKey: again[0]?.dedupeKey ?? '',
      priority: 'high',
      payload: again[0]?.alert,
      createdAt: check.at,
    });
    expect(id).toBeUndefined();
    // And once stored, the spike is cooling: the check itself finds nothing more.
    expect(topicSpikeAlerts(db, check)).toEqual([]);
    // A payload the retention prune emptied tells no key: the check reads it as nothing, not a TypeError.
    db.update(alerts).set({ payload: {} }).where(eq(alerts.kind, 'topic-spike')).run();
    expect(topicSpikeAlerts(db, check).map((s) => s.dedupeKey)).toEqual([stored.dedupeKey]);
  });

  it('stays quiet on low reviews about many things', async () => {
    await baseline();
    const noise = [
      'Charged twice for one month',
      'Crashes every time I open it',
      'Support never replied to my email',
      'Way too slow on my store',
      'Setup was confusing, gave up',
      'Missing the feature I need most',
    ];
    sim.controls.addReviews('shop', wave(noise));
    await pollAndSettle(['shop']);
    sim.controls.addReviews('shop', wave(['Refund took weeks', 'The app is fine but ugly'], 6));
    await pollAndSettle(['shop']);
    expect(spikeRows()).toHaveLength(0);
    expect(spikeBodies()).toHaveLength(0);
    // The reviews themselves were alerted.
    expect(slack.accepted().length).toBeGreaterThanOrEqual(8);
  });
});

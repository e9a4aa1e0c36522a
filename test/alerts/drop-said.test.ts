/**
 * How a rating drop is said (alerts/drop-delivery.ts), end to end: the real worker polls the simulator
 * over HTTP and delivers to a fake Slack webhook and a real SMTP server; the console channel is the
 * email's text, checked on the same notifications.
 */
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dropDelivery } from '../../src/alerts/drop-delivery.js';
import { crossedLevel, dropPriority, evaluateRating } from '../../src/alerts/rating-drop.js';
import type { RatingDropAlert, ReviewAlert } from '../../src/alerts/types.js';
import { collectDigest, weekContaining } from '../../src/digest/index.js';
import { openChannel } from '../../src/notify/channel-types.js';
import type { ChannelSender } from '../../src/notify/sender.js';
import { DEFAULT_SCORING_RULES } from '../../src/scoring/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { alerts, deliveries } from '../../src/store/schema.js';
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

function config(ratingDrop: Record<string, unknown> = {}) {
  return {
    catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 200 },
    poll: { baselinePages: 3, backoff: '100ms' },
    apps: [
      { handle: 'shop', notify: ['support', 'mail'] },
      { handle: 'rival', role: 'competitor', notify: ['support', 'mail'] },
    ],
    alerts: { lowRating: { maxRating: 2 }, throttle: { max: 100 }, incident: { count: 50 }, ratingDrop },
    channels: {
      support: { type: 'slack', webhookUrl: slack.url },
      mail: { type: 'email', from: 'reviewwatch@example.com', to: ['support@example.com'] },
    },
  };
}

/**
 * The listing's summary: 50 ratings at 4.74 (displayed 4.7) plus `ones` more one-star ones. One more
 * one-star rating makes 4.67: a fall of 0.07, past minDrop, crossing no half-star level.
 */
function setSummary(handle: string, ones: number, scale = 1) {
  const counts = { 5: 40 * scale, 4: 9 * scale, 3: 0, 2: 0, 1: 1 + ones };
  sim.controls.setSummary(
    handle,
    Object.entries(counts).map(([label, count]) => ({ label, count })),
  );
}

async function baselineThen(raw: Record<string, unknown>, scale = 1) {
  setSummary('shop', 0, scale);
  setSummary('rival', 0);
  h = await startHarness(raw, { SMTP_URL: smtp.url });
  await h.poll(['shop', 'rival']);
  expect(slack.calls).toHaveLength(0);
}

async function pollAndSettle(handles: string[]) {
  const results = await h.poll(handles);
  await h.settle(results.flatMap((r) => r.deliveryIds));
}

function dropRows(handle: string) {
  return h.worker.store.db
    .select()
    .from(alerts)
    .where(eq(alerts.kind, 'rating-drop'))
    .all()
    .filter((a) => a.appHandle === handle)
    .map((a) => ({ ...a, payload: a.payload as RatingDropAlert }));
}

function deliveriesOf(alertId: number) {
  return h.worker.store.db.select().from(deliveries).where(eq(deliveries.alertId, alertId)).all();
}

const bodies = () => slack.accepted().map((c) => JSON.stringify(c.body));

describe('a rating drop said once, where people look', () => {
  it('puts a drop the review alerts explain into them as a line, on Slack, email and the console', async () => {
    await baselineThen(config());
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Charged twice, no refund' }]);
    setSummary('shop', 1);
    await pollAndSettle(['shop']);

    // One message per channel: the review, with the rating's fall in it; no rating-drop message.
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]).toContain('Charged twice');
    expect(bodies()[0]).toContain('Rating now 4.67 (was 4.74)');
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]?.subject).toMatch(/^★☆☆☆☆/);
    expect(smtp.mails[0]?.text).toContain('Rating now 4.67 (was 4.74)');
    expect(smtp.mails[0]?.html).toContain('Rating now 4.67 (was 4.74)');
    // The drop is kept (the app page's markers, the digest), with no delivery of its own.
    const [drop] = dropRows('shop');
    expect(drop?.payload.saidIn).toBe('review-alerts');
    expect(deliveriesOf(drop?.id ?? 0)).toHaveLength(0);

    // The console prints the same notification as text.
    const review = h.worker.store.db.select().from(alerts).where(eq(alerts.kind, 'review')).get();
    const printed = await printOnConsole({ kind: 'single', alert: review?.payload as ReviewAlert });
    expect(printed).toContain('Rating now 4.67 (was 4.74)');
  });

  it('puts the line once on a group of review alerts, on Slack, email and the console', async () => {
    // 320 five-star, 72 four-star and one one-star rating (4.81); six one-star reviews make 4.75.
    await baselineThen(config(), 8);
    sim.controls.addReviews(
      'shop',
      // Six reviews about nothing in common: no topic spike beside the group.
      ['Nope', 'Meh', 'Not for me', 'Disappointed', 'Awful', 'Expected more'].map((text) => ({
        rating: 1,
        review_content: text,
      })),
    );
    setSummary('shop', 6, 8);
    await pollAndSettle(['shop']);
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]).toContain('6 new low reviews');
    expect(bodies()[0]?.split('Rating now 4.7 (was 4.8)')).toHaveLength(2);
    expect(bodies()[0]).toContain('rating now 4.7 (was 4.8)'); // the notification's text
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]?.text?.split('Rating now 4.7 (was 4.8)')).toHaveLength(2);
    const grouped = h.worker.store.db
      .select()
      .from(alerts)
      .where(eq(alerts.kind, 'review'))
      .all()
      .map((a) => a.payload as ReviewAlert);
    const printed = await printOnConsole({
      kind: 'group',
      app: grouped[0]?.app ?? (sim.url as never),
      alerts: grouped,
    });
    expect(printed.split('Rating now 4.7 (was 4.8)')).toHaveLength(2);
  });

  it('sends a drop no alerted review explains as a message of its own, once', async () => {
    await baselineThen(config());
    // Three one-star ratings without text: nothing stored explains the fall.
    setSummary('shop', 3);
    await pollAndSettle(['shop']);
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]).toMatch(/Rating of .* fell from 4.7 to 4.5/);
    expect(bodies()[0]).toContain('without a review we store');
    expect(smtp.mails.map((m) => m.subject)).toEqual([expect.stringMatching(/^▼ .*rating 4\.7 → 4\.5$/)]);
    // The same rating on the next polls, and a bounce back for one poll: nothing more.
    await pollAndSettle(['shop']);
    setSummary('shop', 0);
    await pollAndSettle(['shop']);
    setSummary('shop', 3);
    await pollAndSettle(['shop']);
    expect(bodies()).toHaveLength(1);
    expect(smtp.mails).toHaveLength(1);
  });

  it('keeps a further low that earlier review alerts explain for the digest when no review came this poll', async () => {
    await baselineThen(config());
    setSummary('shop', 3); // 4.74 → 4.53: said in a message
    await pollAndSettle(['shop']);
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Charged twice, no refund' }]);
    setSummary('shop', 3); // the review is listed before the summary counts it
    await pollAndSettle(['shop']);
    expect(bodies()).toHaveLength(2);
    setSummary('shop', 4); // 4.53 → 4.46: the alerted review explains it, and no review came this poll
    await pollAndSettle(['shop']);
    expect(bodies()).toHaveLength(2);
    const drops = dropRows('shop');
    expect(drops.map((d) => [d.payload.to.average.toFixed(2), d.payload.saidIn ?? 'message'])).toEqual([
      ['4.53', 'message'],
      ['4.46', 'digest'],
    ]);
    const now = new Date();
    const digest = collectDigest(h.worker.store.db, {
      apps: [{ handle: 'shop', role: 'own' }],
      period: weekContaining(now, 'UTC'),
      maxRating: 2,
      scoring: DEFAULT_SCORING_RULES,
      now,
    });
    const shop = digest.apps.find((a) => a.handle === 'shop');
    expect(shop?.drops.map((d) => d.to.toFixed(2))).toEqual(['4.53', '4.46']);
  });

  it("keeps a competitor's drop for the digest by default, and the digest shows it", async () => {
    await baselineThen(config());
    setSummary('rival', 3);
    await pollAndSettle(['rival']);
    expect(slack.calls).toHaveLength(0);
    expect(smtp.mails).toHaveLength(0);
    const [drop] = dropRows('rival');
    expect(drop?.payload.saidIn).toBe('digest');
    expect(deliveriesOf(drop?.id ?? 0)).toHaveLength(0);

    const now = new Date();
    const digest = collectDigest(h.worker.store.db, {
      apps: [
        { handle: 'shop', role: 'own' },
        { handle: 'rival', role: 'competitor' },
      ],
      period: weekContaining(now, 'UTC'),
      maxRating: 2,
      scoring: DEFAULT_SCORING_RULES,
      now,
    });
    const rival = digest.apps.find((a) => a.handle === 'rival');
    expect(rival?.drops.map((d) => [d.from.toFixed(2), d.to.toFixed(2)])).toEqual([['4.74', '4.53']]);
  });

  it("alerts a competitor's drop at once with alerts.ratingDrop.competitors: immediate", async () => {
    await baselineThen(config({ competitors: 'immediate' }));
    setSummary('rival', 3);
    await pollAndSettle(['rival']);
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]).toMatch(/Rating of .* fell/);
    expect(smtp.mails).toHaveLength(1);
  });
});

describe('how urgent a drop is', () => {
  const rule = { minDrop: 0.05, displayed: true, recovery: 0.05, recoveryHoldMs: 86_400_000, maxRating: 2 };
  const none = () => ({
    newByStars: [0, 0, 0, 0, 0] as const,
    newReviews: 0,
    rerated: 0,
    storedDelta: [0, 0, 0, 0, 0] as const,
    removed: 0,
    unread: 0,
  });
  const priorityOf = (from: number, count: number, to: number) =>
    evaluateRating(
      { level: { average: from, count, at: new Date(0) }, alerted: false },
      { average: to, count: count + 1, at: new Date(60_000) },
      rule,
      none,
    ).drop?.priority;

  it('is never CRITICAL for one review on an app with a handful of ratings', () => {
    // The competitor: 4.0 → 2.5 on its second rating.
    expect(priorityOf(4, 1, 2.5)).toBe('low');
    // Three one-star reviews on 24 ratings: −0.4, medium at most.
    expect(priorityOf(4.58, 24, 4.18)).toBe('medium');
    expect(priorityOf(4.6, 120, 4.2)).toBe('high');
    // The same fall on a big app is critical.
    expect(priorityOf(4.6, 5000, 4.2)).toBe('critical');
    expect(dropPriority(0.06, 5000)).toBe('medium');
  });
});

/** What the console channel prints for a notification, colours and all stripped to text. */
async function printOnConsole(notification: Parameters<ChannelSender['send']>[0]): Promise<string> {
  let out = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  const sender = openChannel(
    'terminal',
    { type: 'console', minPriority: 'low' },
    { stdout: stream, source: {} },
  );
  if (typeof sender === 'string') throw new Error(sender);
  await sender.send(notification);
  return out;
}

describe('dropDelivery', () => {
  const context = {
    explainedShare: 1,
    reviewsReachItsChannels: true,
    competitor: false,
    competitorsImmediate: false,
  };
  const say = (drop: { crossed?: number; deepening?: true }, over: Partial<typeof context> = {}) => {
    const how = dropDelivery(drop, { ...context, ...over });
    return how.message ? 'message' : how.fold ? 'line' : how.record ? 'kept' : 'nothing';
  };

  it('says a first fall as a line when alerted reviews explain it, else as a message', () => {
    expect(say({})).toBe('line');
    expect(say({}, { explainedShare: 0.4 })).toBe('message');
    // Explained, but a channel the drop reaches gets none of the review alerts: it must hear of it.
    expect(say({}, { reviewsReachItsChannels: false })).toBe('message');
  });

  it('sends a first fall under a half-star level as a message, explained or not', () => {
    expect(crossedLevel(45, 4.44)).toBe(4.5);
    expect(crossedLevel(46, 4.45)).toBeUndefined();
    expect(crossedLevel(41, 3.94)).toBe(4);
    expect(say({ crossed: 4.5 })).toBe('message');
  });

  it('says a further low of a fall already sent at most as a line, a message only past a level unexplained', () => {
    expect(say({ deepening: true })).toBe('line');
    expect(say({ deepening: true }, { explainedShare: 0 })).toBe('nothing');
    expect(say({ deepening: true, crossed: 4 })).toBe('line');
    expect(say({ deepening: true, crossed: 4 }, { explainedShare: 0 })).toBe('message');
  });

  it('never leaves a further low the reviews explain unsaid when its line cannot go on them', () => {
    // A channel the drop reaches gets none of the review alerts, or no review arrived this poll.
    const unfolded = { reviewsReachItsChannels: false };
    expect(say({ deepening: true, crossed: 4 }, unfolded)).toBe('message');
    expect(dropDelivery({ deepening: true, crossed: 4 }, { ...context, ...unfolded })).not.toHaveProperty(
      'saidIn',
    );
    expect(dropDelivery({ deepening: true }, { ...context, ...unfolded })).toEqual({
      message: false,
      fold: false,
      record: true,
      saidIn: 'digest',
    });
  });

  it("keeps a competitor's drop for the digest, once per fall, unless told to alert it", () => {
    expect(dropDelivery({}, { ...context, competitor: true })).toMatchObject({
      message: false,
      record: true,
      saidIn: 'digest',
    });
    expect(say({ deepening: true }, { competitor: true, explainedShare: 0 })).toBe('nothing');
    expect(say({}, { competitor: true, competitorsImmediate: true, explainedShare: 0 })).toBe('message');
  });
});

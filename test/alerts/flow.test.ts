import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messagesOf } from '../../src/alerts/messages.js';
import { NOTIFY_JOB } from '../../src/queue/names.js';
import { enqueueMessages, enqueueUndelivered } from '../../src/queue/notify-worker.js';
import { partsOf } from '../../src/root/worker.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { deliveryStates, retryFailed, undeliveredDeliveries } from '../../src/store/outbox.js';
import { alerts, deliveries } from '../../src/store/schema.js';
import { waitFor } from '../helpers/index.js';
import { drained } from '../helpers/queue.js';
import { type Harness, startHarness } from '../helpers/runtime.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';
import { type FakeSmtp, startFakeSmtp } from '../helpers/smtp.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

let sim: Simulator;
let slack: FakeSlack;
let smtp: FakeSmtp;
let h: Harness;

/** alerts.throttle.window in the throttle test. */
const THROTTLE_WINDOW_MS = 6_000;

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: ['shop', 'rival'], maxReviewsPerApp: 30 });
});
afterAll(() => sim.close());

function config(overrides: Record<string, unknown> = {}) {
  return {
    catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 200 },
    poll: { baselinePages: 3, backoff: '100ms' },
    apps: [{ handle: 'shop', notify: ['support', 'mail'] }, { handle: 'rival' }],
    // Drops have tests of their own below; here a single bad review must not also move the rating level.
    alerts: {
      lowRating: { maxRating: 2 },
      throttle: { max: 100 },
      ratingDrop: { minDrop: 5, displayed: false },
    },
    channels: {
      support: { type: 'slack', webhookUrl: slack.url },
      mail: { type: 'email', from: 'reviewwatch@example.com', to: ['support@example.com'] },
    },
    ...overrides,
  };
}

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

async function baselineThen(raw = config()) {
  h = await startHarness(raw, { SMTP_URL: smtp.url });
  await h.poll(['shop', 'rival']);
  expect(slack.calls).toHaveLength(0);
}

async function pollAndSettle(handles = ['shop']) {
  const results = await h.poll(handles);
  const ids = results.flatMap((r) => r.deliveryIds);
  await h.settle(ids);
  return { results, ids };
}

describe('alerts end to end', () => {
  it('deliver a new bad review to Slack and email once, escaped, and nothing historical', async () => {
    await baselineThen();
    sim.controls.addReviews('shop', [
      {
        rating: 1,
        reviewer: 'Evil <!channel> & Co',
        review_content: 'Charged twice <https://evil.example|click> no refund',
      },
      { rating: 5, review_content: 'Love it' },
    ]);
    const { ids } = await pollAndSettle();
    expect(ids).toHaveLength(2);
    expect(slack.accepted()).toHaveLength(1);
    const payload = JSON.stringify(slack.accepted()[0]?.body);
    expect(payload).toContain('Evil &lt;!channel&gt; &amp; Co');
    expect(payload).not.toContain('<!channel>');
    expect(payload).not.toContain('<https://evil.example|click>');
    expect(slack.accepted()[0]?.body.text).toBeTruthy();
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]?.subject).toMatch(/^★☆☆☆☆ .*"Charged twice/);
    expect(smtp.mails[0]?.html).not.toContain('<!channel>');
    expect(smtp.mails[0]?.text).toContain('Charged twice');

    // Enqueued again (a sweep, a restart): SQLite says sent, nothing goes out twice.
    await partsOf(h.worker).notifyQueue.addBulk(
      ids.map((id) => ({ name: NOTIFY_JOB, data: { deliveryIds: [id] }, opts: { jobId: `again-${id}` } })),
    );
    await drained(partsOf(h.worker).notifyQueue);
    expect(slack.calls).toHaveLength(1);
    expect(smtp.mails).toHaveLength(1);
    // A quiet poll raises nothing.
    expect((await pollAndSettle()).ids).toHaveLength(0);
  });

  it('tell a burst that makes a topic spike in one message per channel, each review once', async () => {
    await baselineThen();
    sim.controls.addReviews(
      'shop',
      Array.from({ length: 7 }, (_, i) => ({ rating: 1, review_content: `Broken ${i}` })),
    );
    await pollAndSettle();
    // The burst makes a topic spike, which says the possible incident too and carries the poll's reviews,
    // each once with its score: one wave, one message, not a group beside a spike quoting it again.
    const bodies = slack.accepted().map((call) => JSON.stringify(call.body));
    expect(bodies).toHaveLength(1);
    const [spike = ''] = bodies;
    expect(spike).toContain('Topic spike: 7 low reviews of');
    expect(spike).toContain("about bugs: 'broken'");
    // Once each in the message's blocks (its notification text quotes the first beside them).
    const blocks = JSON.stringify(slack.accepted()[0]?.body.blocks);
    for (let i = 0; i < 7; i++) expect(blocks.split(`Broken ${i}`).length - 1).toBe(1);
    expect(spike).toMatch(/New in this poll:\* \d+ \w+/);
    expect(spike).toMatch(/Possible incident\*\\n7 low reviews within 24 h/);
    const subjects = smtp.mails.map((m) => m.subject ?? '');
    expect(subjects).toHaveLength(1);
    expect(subjects.filter((s) => /7 low reviews about bugs: 'broken' in 24 h/.test(s))).toHaveLength(1);
    for (let i = 0; i < 7; i++) expect(smtp.mails[0]?.text).toContain(`Broken ${i}`);
    const raised = h.worker.store.db
      .select()
      .from(alerts)
      .all()
      .map((a) => a.kind);
    expect(raised.filter((k) => k === 'incident')).toHaveLength(1);
  });

  it('retry a webhook 500 and honour a 429 Retry-After, delivering once', async () => {
    await baselineThen(config({ apps: [{ handle: 'shop', notify: ['support'] }] }));
    slack.respond({ status: 500 }, { status: 429, retryAfter: 1 });
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Crashes' }]);
    const started = Date.now();
    await pollAndSettle();
    expect(slack.calls).toHaveLength(3);
    expect(slack.accepted()).toHaveLength(1);
    const [, limited, ok] = slack.calls;
    expect((ok?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('record a permanent failure with its reason, and deliver it on retry', async () => {
    await baselineThen(config({ apps: [{ handle: 'shop', notify: ['support'] }] }));
    slack.respond({ status: 404, body: 'no_service' });
    sim.controls.addReviews('shop', [{ rating: 2, review_content: 'Support never answers' }]);
    const { ids } = await pollAndSettle();
    const [state] = deliveryStates(h.worker.store.db, ids);
    expect(state?.status).toBe('failed');
    expect(state?.lastError).toMatch(/HTTP 404.*no_service.*webhook is gone/);
    expect(state?.lastError).not.toContain('secret-token-xyz');
    expect(h.log.text()).not.toContain('secret-token-xyz');

    await enqueueMessages(partsOf(h.worker).notifyQueue, messagesOf(retryFailed(h.worker.store.db)));
    await h.settle(ids);
    expect(deliveryStates(h.worker.store.db, ids)[0]?.status).toBe('sent');
    expect(slack.accepted()).toHaveLength(1);
  });

  it('record an SMTP 5xx as failed for good, and retry a 4xx', async () => {
    await baselineThen(config({ apps: [{ handle: 'shop', notify: ['mail'] }] }));
    smtp.reject(1, 550, 'mailbox unavailable');
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Refund please' }]);
    const { ids } = await pollAndSettle();
    expect(deliveryStates(h.worker.store.db, ids)[0]).toMatchObject({ status: 'failed' });
    expect(deliveryStates(h.worker.store.db, ids)[0]?.lastError).toMatch(/SMTP 550/);
    expect(h.log.text()).not.toContain('s3cret-smtp-pass');

    smtp.reject(1, 451, 'try again later');
    sim.controls.addReviews('shop', [{ rating: 2, review_content: 'Still broken' }]);
    const second = await pollAndSettle();
    expect(deliveryStates(h.worker.store.db, second.ids)[0]?.status).toBe('sent');
    expect(smtp.mails.map((m) => m.text)).toEqual([expect.stringContaining('Still broken')]);
  });

  it('alert when a merchant re-rates a stored review down, saying so', async () => {
    await baselineThen(config({ apps: [{ handle: 'shop', notify: ['support'] }] }));
    const target = sim.controls.reviews('shop').find((r) => r.rating === 5);
    if (!target) throw new Error('no 5-star review');
    sim.controls.editReview('shop', target.review_id, {
      rating: 1,
      content: 'Update: they charged me twice',
    });
    await pollAndSettle();
    expect(slack.accepted()).toHaveLength(1);
    expect(JSON.stringify(slack.accepted()[0]?.body)).toContain('rerated from 5 to 1');
  });

  it('lose nothing when Redis loses the queue: the outbox is re-enqueued', async () => {
    await baselineThen(config({ apps: [{ handle: 'shop', notify: ['support'] }] }));
    await partsOf(h.worker).notifyWorker.pause();
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Lost my data' }]);
    const [result] = await h.poll(['shop']);
    await partsOf(h.worker).notifyQueue.obliterate({ force: true });
    expect(undeliveredDeliveries(h.worker.store.db).map((d) => d.id)).toEqual(result?.deliveryIds);
    await enqueueUndelivered(partsOf(h.worker).notifyQueue, h.worker.store);
    partsOf(h.worker).notifyWorker.resume();
    await h.settle(result?.deliveryIds ?? []);
    expect(slack.accepted()).toHaveLength(1);
  });

  it('hold what exceeds the throttle and send it as one grouped message when the window frees', async () => {
    // The second and third polls must both land inside the first message's window, however slow the
    // machine: the window is far longer than two polls take on a loaded CI box (about a second).
    await baselineThen(
      config({
        apps: [{ handle: 'shop', notify: ['support'] }],
        alerts: {
          lowRating: { maxRating: 2 },
          throttle: { max: 1, window: `${THROTTLE_WINDOW_MS}ms` },
          incident: { count: 50 },
          ratingDrop: { minDrop: 5, displayed: false },
        },
      }),
    );
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'First' }]);
    await pollAndSettle();
    const firstSentAt = slack.accepted()[0]?.at ?? 0;
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Second' }]);
    await pollAndSettle();
    sim.controls.addReviews('shop', [{ rating: 2, review_content: 'Third' }]);
    const { ids } = await pollAndSettle();
    expect(
      slack.accepted(),
      `the polls took ${Date.now() - firstSentAt} ms of the ${THROTTLE_WINDOW_MS} ms window`,
    ).toHaveLength(1);
    expect(deliveryStates(h.worker.store.db, ids)[0]?.status).toBe('held');
    await waitFor(
      () => deliveryStates(h.worker.store.db, ids)[0]?.status === 'sent',
      THROTTLE_WINDOW_MS + 20_000,
      () => `the held alert is ${deliveryStates(h.worker.store.db, ids)[0]?.status}`,
    );
    expect(slack.accepted()).toHaveLength(2);
    const grouped = JSON.stringify(slack.accepted()[1]?.body);
    expect(grouped).toContain('Second');
    expect(grouped).toContain('Third');
    const held = h.worker.store.db.select().from(deliveries).where(eq(deliveries.status, 'held')).all();
    expect(held).toHaveLength(0);
  }, 60_000);
});

describe('rating drops and incidents', () => {
  it('alert once per drop, explain it, and re-arm after a recovery that holds', async () => {
    await baselineThen(
      config({
        apps: [{ handle: 'shop', notify: ['support'] }],
        // A recovery holds once two polls in a row see it: the wait is a millisecond.
        alerts: { lowRating: { maxRating: 2 }, ratingDrop: { recoveryHold: 1 } },
      }),
    );
    const base = sim.controls.reviews('shop');
    const count = (stars: number) => base.filter((r) => r.rating === stars).length;
    const summary = (extraOnes: number) => [
      { label: '5', count: count(5) },
      { label: '4', count: count(4) },
      { label: '3', count: count(3) },
      { label: '2', count: count(2) },
      { label: '1', count: count(1) + extraOnes },
    ];
    sim.controls.setSummary('shop', summary(8));
    await pollAndSettle();
    const drops = () => h.worker.store.db.select().from(alerts).where(eq(alerts.kind, 'rating-drop')).all();
    expect(drops()).toHaveLength(1);
    expect(JSON.stringify(slack.accepted().at(-1)?.body)).toMatch(/rating/i);
    await pollAndSettle();
    expect(drops()).toHaveLength(1);

    // Back for one poll, then down again: a bounce, not a second fall.
    sim.controls.setSummary('shop', summary(0));
    await pollAndSettle();
    sim.controls.setSummary('shop', summary(8));
    await pollAndSettle();
    expect(drops()).toHaveLength(1);
    // Back for two polls (the hold passed), then down again: a new fall.
    sim.controls.setSummary('shop', summary(0));
    await pollAndSettle();
    await pollAndSettle();
    sim.controls.setSummary('shop', summary(8));
    await pollAndSettle();
    expect(drops()).toHaveLength(2);
  });

  it('raise one possible-incident alert for three low reviews within the window', async () => {
    await baselineThen(config({ apps: [{ handle: 'shop', notify: ['support'] }] }));
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'A' }]);
    await pollAndSettle();
    sim.controls.addReviews('shop', [
      { rating: 2, review_content: 'B' },
      { rating: 1, review_content: 'C' },
    ]);
    await pollAndSettle();
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'D' }]);
    await pollAndSettle();
    const incidents = h.worker.store.db.select().from(alerts).where(eq(alerts.kind, 'incident')).all();
    expect(incidents).toHaveLength(1);
    const payload = incidents[0]?.payload as { reviews: Array<{ content: string }> } | undefined;
    expect(payload?.reviews.map((r) => r.content).sort()).toEqual(['A', 'B', 'C']);
  });

  it('send a possible incident with the low reviews of its poll as one message where people read it', async () => {
    const hooks = await startWebhookReceiver();
    try {
      const secret = `whsec_${Buffer.from('a webhook key of thirty-two bytes').toString('base64')}`;
      await baselineThen(
        config({
          apps: [{ handle: 'shop', notify: ['support', 'mail', 'hooks'] }, { handle: 'rival' }],
          channels: {
            support: { type: 'slack', webhookUrl: slack.url },
            mail: { type: 'email', from: 'reviewwatch@example.com', to: ['support@example.com'] },
            hooks: { type: 'webhook', url: hooks.url, secret },
          },
        }),
      );
      sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Crashed on checkout' }]);
      await pollAndSettle();
      expect(slack.accepted()).toHaveLength(1);
      sim.controls.addReviews('shop', [
        { rating: 2, review_content: 'Refund never came' },
        { rating: 1, reviewer: 'Mal <!channel>', review_content: 'Support never replied' },
      ]);
      const { ids } = await pollAndSettle();

      // Slack: one message for the poll, not its two reviews and then an incident listing them again.
      const bodies = slack.accepted().map((call) => JSON.stringify(call.body));
      expect(bodies).toHaveLength(2);
      const incident = bodies[1] ?? '';
      expect(incident).toContain('⚠ Possible incident: 3 low reviews of');
      for (const text of ['Crashed on checkout', 'Refund never came', 'Support never replied'])
        expect(incident.split(text).length - 1).toBe(1);
      // The poll's reviews with their scores and why; the first, found by the poll before, marked so.
      expect(incident.match(/_Why: /g)).toHaveLength(2);
      expect(incident.split('found earlier').length - 1).toBe(1);
      expect(incident).toContain('Mal &lt;!channel&gt;');
      expect(incident).not.toContain('<!channel>');
      const subjects = smtp.mails.map((m) => m.subject ?? '');
      expect(subjects).toHaveLength(2);
      expect(subjects[1]).toMatch(/^⚠ .*: 3 low reviews in 24 h$/);
      expect(smtp.mails[1]?.text).toContain('Refund never came');

      // A program still gets an event per alert.
      expect(hooks.calls.map((c) => c.body.type).sort()).toEqual([
        'incident',
        'review.low',
        'review.low',
        'review.low',
      ]);
      // Each alert of the poll was delivered, on every channel, by those messages.
      const states = deliveryStates(h.worker.store.db, ids);
      expect(states).toHaveLength(9);
      expect(states.every((s) => s.status === 'sent')).toBe(true);
    } finally {
      await hooks.close();
    }
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { previousWeek } from '../../src/digest/index.js';
import { overdueDigest, sendDigest } from '../../src/digest/send.js';
import { silentLogger } from '../../src/log.js';
import { createSenders } from '../../src/notify/channels.js';
import { alerts, apps, pollRuns, ratingSnapshots, reviews } from '../../src/store/schema.js';
import { tempStore } from '../helpers/index.js';
import { storeReview } from '../helpers/reviews.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';
import { type FakeSmtp, startFakeSmtp } from '../helpers/smtp.js';

let store: ReturnType<typeof tempStore>;
let smtp: FakeSmtp;
let slack: FakeSlack;

// Monday 2026-11-23 10:00 in Berlin: the digest reports on 16–22 November.
const NOW = new Date('2026-11-23T09:00:00Z');

function config(extra: Record<string, unknown> = {}) {
  return parseConfig(
    {
      ...extra,
      apps: [
        { handle: 'my-app', name: 'My App' },
        { handle: 'rival', role: 'competitor' },
      ],
      channels: {
        mail: { type: 'email', from: 'reviewwatch@example.com', to: ['boss@example.com'] },
        team: { type: 'slack', webhookUrl: slack.url },
      },
      digest: { schedule: '0 9 * * 1', timezone: 'Europe/Berlin', channels: ['mail', 'team'] },
    },
    {},
  );
}

function seed() {
  const { db } = store;
  // Watched since October: the week of 16–22 November is all watched time.
  const baselineAt = new Date('2026-10-01T08:00:00Z');
  db.insert(apps)
    .values([
      { handle: 'my-app', baselineAt },
      { handle: 'rival', baselineAt },
    ])
    .run();
  const run = db
    .insert(pollRuns)
    .values({
      appHandle: 'my-app',
      startedAt: NOW,
      finishedAt: NOW,
      status: 'ok',
      requests: 1,
      pages: 1,
      newReviews: 0,
      editedReviews: 0,
    })
    .returning()
    .get();
  const review = (handle: string, id: number, rating: number, created: string, content: string) => ({
    appHandle: handle,
    identity: String(id),
    fingerprint: `f${id}`,
    reviewId: String(id),
    reviewer: `Store ${id}`,
    location: 'Germany',
    rating,
    content,
    createdDate: created,
    createdAt: new Date(created),
    timeUsingApp: '',
    appName: handle,
    appUrl: `https://apps.platform.example/${handle}`,
    fromBaseline: false,
    firstSeenAt: new Date(created),
    updatedAt: new Date(created),
    pollRunId: run.id,
  });
  for (const row of [
    review('my-app', 1, 5, '2026-11-17T10:00:00Z', 'Great app'),
    review('my-app', 2, 1, '2026-11-18T10:00:00Z', 'Charged twice, no refund'),
    review('my-app', 3, 4, '2026-11-22T22:30:00Z', 'Sunday night review, still this week in Berlin'),
    review('my-app', 4, 2, '2026-11-22T23:30:00Z', 'Monday 00:30 in Berlin: next week'),
    review('rival', 5, 3, '2026-11-19T10:00:00Z', 'Okay'),
  ]) {
    storeReview(db, row);
  }
  const snapshot = (handle: string, at: string, average: number, count: number) => ({
    appHandle: handle,
    takenAt: new Date(at),
    average,
    count,
    pollRunId: run.id,
  });
  db.insert(ratingSnapshots)
    .values([
      snapshot('my-app', '2026-10-25T12:00:00Z', 4.6, 100),
      snapshot('my-app', '2026-11-15T12:00:00Z', 4.5, 110),
      snapshot('my-app', '2026-11-22T12:00:00Z', 4.4, 113),
      snapshot('rival', '2026-11-22T12:00:00Z', 4.1, 50),
    ])
    .run();
}

beforeEach(async () => {
  store = tempStore();
  smtp = await startFakeSmtp();
  slack = await startFakeSlack();
  seed();
});
afterEach(async () => {
  store.cleanup();
  await smtp.close();
  await slack.close();
});

function deps() {
  const cfg = config();
  return { config: cfg, store, senders: createSenders(cfg, smtp.url), logger: silentLogger };
}

describe('the weekly digest', () => {
  it("reports triage, linking to the inbox's open reviews when web.publicUrl is set", async () => {
    const review = store.db.select({ id: reviews.id }).from(reviews).all()[1];
    store.db
      .insert(alerts)
      .values({
        appHandle: 'my-app',
        kind: 'review',
        dedupeKey: 'review-2',
        priority: 'critical',
        reviewRowId: review?.id ?? 0,
        payload: {},
        createdAt: new Date('2026-11-18T10:05:00Z'),
      })
      .run();
    const cfg = config({ web: { publicUrl: 'https://reviews.example.com' } });
    const senders = createSenders(cfg, smtp.url);
    await sendDigest(
      { config: cfg, store, senders, logger: silentLogger },
      previousWeek(NOW, 'Europe/Berlin'),
      NOW,
    );
    const open = '1 alerted review still open (new or acknowledged): 1 critical.';
    const link =
      'https://reviews.example.com/?role=own&stars=1,2,3,4,5&priority=critical,high,medium,low&status=new,acknowledged&period=all';
    expect(smtp.mails[0]?.text).toContain(
      `TRIAGE\n${open}\nNo alerted review was acknowledged this week.\nOpen in the inbox: ${link}`,
    );
    expect(smtp.mails[0]?.html).toContain(`href="${link.replace(/&/g, '&amp;')}"`);
    expect(JSON.stringify(slack.accepted()[0]?.body)).toContain(
      `<${link.replace(/&/g, '&amp;')}|Open them in the inbox>`,
    );
  });

  it('sends the seeded week once per channel: email with the numbers, Slack a summary', async () => {
    const period = previousWeek(NOW, 'Europe/Berlin');
    const outcomes = await sendDigest(deps(), period, NOW);
    expect(outcomes.map((o) => [o.channel, o.status])).toEqual([
      ['mail', 'sent'],
      ['team', 'sent'],
    ]);
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0];
    // Three reviews of my-app in the Berlin week (the Sunday 23:30 one included, the Monday 00:30 one not).
    expect(mail?.text).toMatch(/My App/);
    expect(mail?.text).toMatch(/\b3 new reviews?\b/);
    expect(mail?.text).toContain('Sunday night review');
    expect(mail?.text).not.toContain('Monday 00:30 in Berlin');
    expect(mail?.text).toContain('Charged twice, no refund');
    expect(mail?.subject).not.toMatch(/[\r\n]/);
    expect(mail?.html).toMatch(/rival/);
    expect(slack.accepted()).toHaveLength(1);

    // Again, and from a second worker at once: nothing more goes out.
    const again = await Promise.all([sendDigest(deps(), period, NOW), sendDigest(deps(), period, NOW)]);
    expect(again.flat().every((o) => o.status === 'already-sent')).toBe(true);
    expect(smtp.mails).toHaveLength(1);
    expect(slack.accepted()).toHaveLength(1);
  });

  it('is overdue when the worker was down at send time, and not once sent', async () => {
    const d = deps();
    expect(overdueDigest(d, NOW)?.start.toISOString()).toBe(
      previousWeek(NOW, 'Europe/Berlin').start.toISOString(),
    );
    // Before Monday 09:00 Berlin the week's digest is not due yet.
    expect(overdueDigest(d, new Date('2026-11-23T07:30:00Z'))?.label).not.toBe(
      previousWeek(NOW, 'Europe/Berlin').label,
    );
    await sendDigest(d, previousWeek(NOW, 'Europe/Berlin'), NOW);
    expect(overdueDigest(d, NOW)).toBeUndefined();
  });

  it('leaves a digest another worker is sending right now to that worker', async () => {
    const period = previousWeek(NOW, 'Europe/Berlin');
    const { claimDigest } = await import('../../src/store/digests.js');
    const { periodKey } = await import('../../src/digest/index.js');
    expect(
      claimDigest(
        store.db,
        { periodStart: periodKey(period), periodEnd: period.end.toISOString(), channel: 'mail' },
        NOW,
      ),
    ).toBe('claimed');
    const outcomes = await sendDigest(deps(), period, NOW);
    expect(outcomes.find((o) => o.channel === 'mail')?.status).toBe('busy');
    expect(smtp.mails).toHaveLength(0);
  });

  it('records a failed send and sends it on the next run', async () => {
    const period = previousWeek(NOW, 'Europe/Berlin');
    smtp.reject(1, 554, 'no thanks');
    const first = await sendDigest(deps(), period, NOW);
    expect(first.find((o) => o.channel === 'mail')).toMatchObject({ status: 'failed' });
    expect(overdueDigest(deps(), NOW)).toBeDefined();
    const second = await sendDigest(deps(), period, NOW);
    expect(second.map((o) => o.status)).toEqual(['sent', 'already-sent']);
    expect(smtp.mails).toHaveLength(1);
  });
});

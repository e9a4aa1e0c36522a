import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import {
  coverageOf,
  type DigestPeriod,
  periodBetween,
  previousWeek,
  watchedSince,
} from '../../src/digest/index.js';
import { overdueDigest, sendDigest } from '../../src/digest/send.js';
import { silentLogger } from '../../src/log.js';
import { createSenders } from '../../src/notify/channels.js';
import { connectRedis } from '../../src/queue/connection.js';
import { enqueueOverdueDigest } from '../../src/queue/digest-worker.js';
import { DIGEST_QUEUE } from '../../src/queue/names.js';
import { partsOf, startWorker } from '../../src/root/worker.js';
import { settingsOf } from '../../src/settings.js';
import { startSimulator } from '../../src/simulator/index.js';
import { openStore, type StoreDb } from '../../src/store/db.js';
import { apps, digestRuns, pollRuns } from '../../src/store/schema.js';
import { runCli } from '../helpers/cli.js';
import { captureLog, REDIS_URL, tempDir, tempStore, uniquePrefix } from '../helpers/index.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';
import { type FakeSmtp, startFakeSmtp } from '../helpers/smtp.js';

const TZ = 'Europe/Berlin';
/** Monday 23 November 2026, 10:00 in Berlin: the digest reports on 16–22 November. */
const NOW = new Date('2026-11-23T09:00:00Z');
const WEEK = previousWeek(NOW, TZ);

function addApp(db: StoreDb, handle: string, baselineAt: Date | null): void {
  db.insert(apps).values({ handle, baselineAt }).run();
}

function addRun(db: StoreDb, handle: string, at: Date, status: 'ok' | 'baseline' | 'failed' | 'unavailable') {
  db.insert(pollRuns)
    .values({
      appHandle: handle,
      startedAt: at,
      finishedAt: at,
      status,
      requests: 1,
      pages: 1,
      newReviews: 0,
      editedReviews: 0,
    })
    .run();
}

let store: ReturnType<typeof tempStore>;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

describe('when reviewwatch started watching', () => {
  it('is the first baseline of the digest’s apps; null before any successful poll', () => {
    expect(watchedSince(store.db, ['a', 'b'])).toBeNull();
    addApp(store.db, 'a', null);
    // A poll that failed, or found the app gone, watched nothing.
    addRun(store.db, 'a', new Date('2026-11-10T10:00:00Z'), 'failed');
    addRun(store.db, 'a', new Date('2026-11-11T10:00:00Z'), 'unavailable');
    expect(watchedSince(store.db, ['a', 'b'])).toBeNull();

    addApp(store.db, 'b', new Date('2026-11-18T12:00:00Z'));
    addApp(store.db, 'not-in-the-digest', new Date('2026-01-01T00:00:00Z'));
    expect(watchedSince(store.db, ['a', 'b'])).toEqual(new Date('2026-11-18T12:00:00Z'));
    // A successful run stands in for an app without a baseline time (the earlier of the two wins).
    addRun(store.db, 'a', new Date('2026-11-17T08:00:00Z'), 'ok');
    expect(watchedSince(store.db, ['a', 'b'])).toEqual(new Date('2026-11-17T08:00:00Z'));
    expect(watchedSince(store.db, [])).toBeNull();
  });

  it('makes a period watched in full, in part (counted in calendar days), or not at all', () => {
    expect(coverageOf(WEEK, null)).toEqual({ kind: 'none', watchedSince: null });
    expect(coverageOf(WEEK, WEEK.end)).toMatchObject({ kind: 'none' });
    expect(coverageOf(WEEK, WEEK.start)).toEqual({ kind: 'full' });
    // Wednesday 18th 14:00 in Berlin: Wednesday to Sunday.
    expect(coverageOf(WEEK, new Date('2026-11-18T13:00:00Z'))).toEqual({
      kind: 'partial',
      watchedSince: new Date('2026-11-18T13:00:00Z'),
      days: 5,
    });
    // Sunday 23:30 in Berlin (22:30 UTC): one day.
    expect(coverageOf(WEEK, new Date('2026-11-22T22:30:00Z'))).toMatchObject({ days: 1 });
    // The week DST ends in (25 October is 25 hours long): Wednesday to Sunday is still 5 days.
    const dst = previousWeek(new Date('2026-10-26T12:00:00Z'), TZ);
    expect(coverageOf(dst, new Date('2026-10-21T10:00:00Z'))).toMatchObject({ days: 5 });
  });
});

describe('the digest of a period reviewwatch did not watch', () => {
  let smtp: FakeSmtp;
  let slack: FakeSlack;
  beforeEach(async () => {
    smtp = await startFakeSmtp();
    slack = await startFakeSlack();
  });
  afterEach(async () => {
    await smtp.close();
    await slack.close();
  });

  function deps() {
    const config = parseConfig(
      {
        apps: [
          { handle: 'my-app', name: 'My App' },
          { handle: 'rival', role: 'competitor' },
        ],
        channels: {
          mail: { type: 'email', from: 'reviewwatch@example.com', to: ['boss@example.com'] },
          team: { type: 'slack', webhookUrl: slack.url },
        },
        digest: { schedule: '0 9 * * 1', timezone: TZ, channels: ['mail', 'team'] },
      },
      {},
    );
    return { config, store, senders: createSenders(config, smtp.url), logger: silentLogger };
  }

  it('is not sent, nor owed, when it ended before the first successful poll', async () => {
    // Installed on Tuesday 24 November: the week before is not reviewwatch's to report on.
    addApp(store.db, 'my-app', new Date('2026-11-24T10:00:00Z'));
    const later = new Date('2026-11-30T09:00:00Z');
    expect(overdueDigest(deps(), later)?.label).toBe('23–29 Nov 2026');
    expect(overdueDigest(deps(), new Date('2026-11-25T09:00:00Z'))).toBeUndefined();

    const outcomes = await sendDigest(deps(), WEEK, NOW);
    expect(outcomes).toEqual([
      {
        channel: 'mail',
        status: 'not-watched',
        reason:
          'reviewwatch started watching on 24 Nov 2026, after this period ended: nothing in it was watched.',
      },
      expect.objectContaining({ channel: 'team', status: 'not-watched' }),
    ]);
    expect(smtp.mails).toHaveLength(0);
    expect(slack.calls).toHaveLength(0);
    // Nothing claimed: a later, watched period is not affected, and status shows no failed digest.
    expect(store.db.select().from(digestRuns).all()).toEqual([]);
  });

  it('is not sent before any poll succeeded, which is the first start after installation', async () => {
    addApp(store.db, 'my-app', null);
    expect(overdueDigest(deps(), NOW)).toBeUndefined();
    const outcomes = await sendDigest(deps(), WEEK, NOW);
    expect(outcomes.map((o) => o.status)).toEqual(['not-watched', 'not-watched']);
    expect(outcomes[0]?.reason).toBe(
      'reviewwatch has not completed a poll yet: nothing in this period was watched.',
    );
    expect(smtp.mails).toHaveLength(0);
  });

  it('says how many days a first, partial week covers, in the email (HTML and text) and on Slack', async () => {
    addApp(store.db, 'my-app', new Date('2026-11-18T13:00:00Z'));
    addApp(store.db, 'rival', new Date('2026-11-18T13:05:00Z'));
    expect(overdueDigest(deps(), NOW)?.label).toBe(WEEK.label);
    const outcomes = await sendDigest(deps(), WEEK, NOW);
    expect(outcomes.map((o) => o.status)).toEqual(['sent', 'sent']);
    const note = 'reviewwatch started watching on 18 Nov 2026: this digest covers 5 days.';
    const mail = smtp.mails[0];
    expect(mail?.text).toContain(note);
    expect(mail?.html).toContain(note);
    const summary = slack.accepted()[0]?.body;
    expect(summary?.text).toContain(note);
    expect(JSON.stringify(summary?.blocks)).toContain(note);
  });

  it('is a full digest with no such note once the whole week was watched', async () => {
    addApp(store.db, 'my-app', new Date('2026-11-01T10:00:00Z'));
    await sendDigest(deps(), WEEK, NOW);
    expect(smtp.mails[0]?.text).not.toMatch(/started watching/);
    expect(JSON.stringify(slack.accepted()[0]?.body)).not.toMatch(/started watching/);
  });
});

describe('the first start after installation', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function catchUps(queue: Queue): Promise<string[]> {
    const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized', 'active']);
    return jobs.map((j) => j.id ?? '').filter((id) => id.startsWith('catch-up-'));
  }

  it('catches up no digest of the week before it, and still catches up a watched one', async () => {
    const redis = await connectRedis(REDIS_URL);
    const prefix = uniquePrefix();
    const queue = new Queue(DIGEST_QUEUE, { connection: redis, prefix });
    cleanups.push(async () => {
      await queue.obliterate({ force: true });
      await queue.close();
      await redis.quit();
    });
    const config = parseConfig(
      {
        apps: [{ handle: 'my-app' }],
        channels: { team: { type: 'slack', webhookUrl: 'https://hooks.example/T/B/x' } },
        // Every minute: whatever the clock says, last week's digest is due.
        digest: { schedule: '* * * * *', channels: ['team'] },
      },
      {},
    );
    const deps = { config, store, senders: createSenders(config, undefined), logger: silentLogger };
    await enqueueOverdueDigest(queue, deps);
    addApp(store.db, 'my-app', new Date());
    await enqueueOverdueDigest(queue, deps);
    expect(await catchUps(queue)).toEqual([]);

    store.db
      .update(apps)
      .set({ baselineAt: new Date(Date.now() - 30 * 86_400_000) })
      .run();
    await enqueueOverdueDigest(queue, deps);
    expect(await catchUps(queue)).toHaveLength(1);
  });

  it('of a worker with a digest channel enqueues no digest', async () => {
    const sim = await startSimulator({ appCount: 0, handles: ['shop'], maxReviewsPerApp: 5 });
    cleanups.push(() => sim.close());
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const config = parseConfig(
      {
        catalog: { baseUrl: sim.url, apiKey: 'key' },
        apps: [{ handle: 'shop' }],
        channels: { team: { type: 'slack', webhookUrl: 'https://hooks.example/T/B/x' } },
        digest: { channels: ['team'] },
      },
      {},
    );
    const worker = await startWorker(
      {
        ...settingsOf(config, { REDIS_URL, REVIEWWATCH_HTTP_PORT: '0' }, 'test'),
        databasePath: join(dir.dir, 'reviewwatch.db'),
        queuePrefix: uniquePrefix(),
      },
      { mode: 'service', logger: captureLog().logger, privateQueues: true },
    );
    cleanups.push(() => worker.stop());
    const queue = partsOf(worker).digestQueue;
    if (!queue) throw new Error('a service made no digest queue');
    expect(await catchUps(queue)).toEqual([]);
  });
});

describe('reviewwatch digest', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeAll(() => {
    dir = tempDir();
  });
  afterAll(() => dir.cleanup());

  function install(baselineAt: Date): Record<string, string> {
    const dbPath = join(dir.dir, `${baselineAt.getTime()}.db`);
    const seeded = openStore(dbPath);
    addApp(seeded.db, 'my-app', baselineAt);
    seeded.close();
    const configPath = join(dir.dir, `${baselineAt.getTime()}.yaml`);
    writeFileSync(
      configPath,
      [
        'apps: [{ handle: my-app }]',
        'channels: { team: { type: slack, webhookUrl: "https://hooks.invalid/T/B/x" } }',
        `digest: { timezone: ${TZ}, channels: [team] }`,
      ].join('\n'),
    );
    return {
      DATABASE_PATH: dbPath,
      REVIEWWATCH_CONFIG: configPath,
      CATALOG_API_BASE_URL: 'http://127.0.0.1:9',
      CATALOG_API_KEY: 'key',
    };
  }

  const week = (period: DigestPeriod) => [
    '--since',
    period.start.toISOString(),
    '--until',
    period.end.toISOString(),
  ];

  it('--send sends nothing for a week before installation, says why, and exits 0', async () => {
    const env = install(new Date('2026-11-24T10:00:00Z'));
    const result = await runCli(['digest', '--send', ...week(WEEK)], env);
    expect(result.stderr).not.toMatch(/"level":50/);
    expect(result.stdout).toBe(
      'nothing sent for 16–22 Nov 2026: reviewwatch started watching on 24 Nov 2026, after this period ended: nothing in it was watched.\n',
    );
    expect(result.code).toBe(0);
  }, 60_000);

  it('--preview still renders a partial week, with the note', async () => {
    const env = install(new Date('2026-11-20T10:00:00Z'));
    const period = periodBetween(WEEK.start, WEEK.end, TZ);
    const result = await runCli(['digest', '--preview', ...week(period)], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'reviewwatch started watching on 20 Nov 2026: this digest covers 3 days.',
    );
  }, 60_000);
});

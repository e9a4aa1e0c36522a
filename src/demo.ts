import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type Config, parseConfig } from './config/index.js';
import type { Logger } from './log.js';
import { startWorker, type Worker } from './root/worker.js';
import { demoChannelsFrom, settingsOf } from './settings.js';
import { type MarketEvent, type Simulator, startSimulator, type WireReview } from './simulator/index.js';
import { getApp } from './store/apps.js';
import { openStore } from './store/db.js';
import { deleteUser } from './store/users.js';
import { addUser } from './web/users.js';

export const DEMO_APPS = ['acme-bundles', 'bolt-subscriptions', 'cobalt-reviews'] as const;
export const DEMO_RIVAL = 'rival-bundles';
/** The category the demo tracks, and the app that enters it and climbs. */
export const DEMO_CATEGORY = 'store-design';
export const DEMO_ENTRANT = 'nova-bundles';
/** Six hours of ranks pass every this many ms: a day of the market in 40 s. */
const MARKET_TICK_MS = 10_000;
/** Snapshots and listing reads this often: once per market tick (the config minimums are for real use). */
const MARKET_EVERY_MS = 10_000;
const DATA_DIR = 'data/demo';
/** The demo's own keys in Redis, removed when it stops: it never mixes with a real worker's queues. */
const PREFIX = 'reviewwatch-demo';
const ARRIVAL_EVERY_MS = 4_000;
/** The inbox's user for one run of the demo; its password is made for that run and printed once. */
export const DEMO_USER = 'demo';
/** Loopback whatever REVIEWWATCH_HTTP_HOST says: the demo's password is printed on a terminal. */
const DEMO_HOST = '127.0.0.1';

type ScriptedReview = { handle: string } & Pick<WireReview, 'rating' | 'review_content'> &
  Partial<WireReview>;

/** Right after the baseline: several low reviews of one app at once, a possible incident and a drop. */
const BURST: ScriptedReview[] = [
  {
    handle: 'bolt-subscriptions',
    rating: 1,
    review_content: 'Charged twice this month and no refund yet. Support does not answer.',
  },
  {
    handle: 'bolt-subscriptions',
    rating: 1,
    review_content: 'The last update broke checkout, orders are missing. Uninstalling.',
  },
  {
    handle: 'bolt-subscriptions',
    rating: 2,
    review_content: 'Crashes every time I open the subscriptions page.',
  },
  {
    handle: 'bolt-subscriptions',
    rating: 1,
    review_content: 'Lost all my subscriber data after the update!',
  },
];

/**
 * Then, about a minute in, a wave about one integration: six 1-2 star reviews of one app about Klaviyo,
 * by six merchants, one every WAVE_EVERY_MS. The poll that completes it raises one topic spike, with its quotes and the
 * competitor's price cut around it (docs/how-it-works.md, "Topic spikes").
 */
const WAVE: ScriptedReview[] = [
  'Klaviyo sync stopped working, none of my bundle buyers reach my flows anymore.',
  'Since the last update the Klaviyo integration does not send any orders.',
  'Klaviyo lists are empty again. Three days of support tickets, no fix.',
  'The Klaviyo sync broke and we lost a whole campaign.',
  'Nothing reaches Klaviyo now. Disconnecting and reconnecting does not help.',
  'Klaviyo connection keeps failing after the update.',
].map((review_content, i) => ({
  handle: 'acme-bundles',
  rating: i % 3 === 1 ? 2 : 1,
  reviewer: ['Nordic Knits', 'Bay Bakery', 'Lumen Lamps', 'Petal & Pine', 'Surf Supply Co', 'Oak Desk'][i],
  review_content,
}));
const WAVE_EVERY_MS = 2_000;
/** After the competitor's price cut (market tick 4, ~40 s in), so the spike says it changed first. */
const WAVE_AFTER_MS = 55_000;

/**
 * Then one review every few seconds, the same merchants in the same order, round and round: mostly content
 * merchants, with two low reviews a round (96 s), so that after the script a new user sees an alert now and
 * then (for three rounds) rather than a stream of them. Each low one is always by the same merchant: one
 * merchant saying the same thing again is no wave, so the loop makes no topic spike of its own (the spike
 * rule wants three reviewers). A merchant of three stars or fewer says each of its texts once, one a round,
 * then nothing more: the same words again would look like one review alerted twice. Content merchants (four
 * and five stars, which raise no alert) say theirs every round.
 */
const ARRIVALS: ReadonlyArray<{
  handle: string;
  reviewer: string;
  rating: number;
  texts: readonly string[];
}> = (
  [
    ['acme-bundles', 'Maple Goods', 5, ['Bundles set up in minutes. Sales are up.']],
    ['bolt-subscriptions', 'Atlas Pets', 4, ['Good app once the last bug was fixed.']],
    [DEMO_RIVAL, 'Crest Outfitters', 4, ['Does the job, a bit pricey.']],
    ['cobalt-reviews', 'Cinder Candles', 5, ['Great support, they fixed my import in an hour.']],
    [
      'acme-bundles',
      'Fable Prints',
      3,
      [
        'Fine, but the discount rules are confusing.',
        'Better after the help article, though tiered discounts still take me a while.',
        'Does the job. I wish the bundle editor showed a preview.',
      ],
    ],
    ['bolt-subscriptions', 'Willow Wool', 5, ['Our subscribers love the skip-a-month option.']],
    [
      'cobalt-reviews',
      'Harbor Tea',
      2,
      [
        'The widget slows my store down and support takes days to reply.',
        'A second week of slow product pages. Support answered once, then nothing.',
        'Turned the widget off for the holiday sale: our pages load twice as fast without it.',
      ],
    ],
    ['acme-bundles', 'Quill & Ink', 5, ['Easy to use and the bundles look native to our theme.']],
    [DEMO_RIVAL, 'Dune Outdoor', 5, ['Solid bundles app, no complaints.']],
    ['cobalt-reviews', 'Birch Bath', 4, ['Review requests go out on time. Would like more widget layouts.']],
    ['bolt-subscriptions', 'Copper Kettle', 5, ['Churn is down since we added the cancel survey.']],
    ['acme-bundles', 'Pine Paper', 4, ['Works well. The analytics page could load faster.']],
    ['cobalt-reviews', 'Ember Goods', 5, ['Photo reviews made our product pages so much better.']],
    [
      DEMO_RIVAL,
      'Tidal Threads',
      3,
      [
        'Okay for simple bundles.',
        'Fine for two-item bundles, clumsy beyond that.',
        'Average. Nothing wrong, nothing special.',
      ],
    ],
    ['bolt-subscriptions', 'Sage Soap', 4, ['Setup took an afternoon, worth it.']],
    ['acme-bundles', 'Lark Leather', 5, ['Support walked me through the tiered discounts.']],
    ['cobalt-reviews', 'Fern Florals', 5, ['Imported all our old reviews without a hitch.']],
    ['bolt-subscriptions', 'Mesa Coffee', 5, ['Customers can change their delivery dates themselves.']],
    [
      DEMO_RIVAL,
      'Rowan Records',
      1,
      [
        'Stopped working after the update, no reply from support.',
        'Still broken a week after the update, and the changelog says nothing about it.',
        'Gave up waiting for a fix and moved our bundles to another app.',
      ],
    ],
    ['acme-bundles', 'Glow Candles', 4, ['Nice upsells, a bit of a learning curve.']],
    ['cobalt-reviews', 'Iris Jewelry', 4, ['Does what we need. The email template editor is basic.']],
    ['bolt-subscriptions', 'Cedar Soap', 5, ['Billing is clear and the app just runs.']],
    [DEMO_RIVAL, 'Nimbus Nuts', 4, ['Good value for a small shop.']],
    ['acme-bundles', 'Juniper Home', 5, ['Our average order went up the first week.']],
  ] as const
).map(([handle, reviewer, rating, texts]) => ({ handle, reviewer, rating, texts }));

/** How many reviews one round of the loop brings: each merchant of ARRIVALS once. */
export const ARRIVALS_PER_ROUND = ARRIVALS.length;

/** The `n`th review of the loop (from 0), or undefined when its merchant has nothing left to say. */
export function demoArrival(n: number): ScriptedReview | undefined {
  const { texts, ...review } = ARRIVALS[n % ARRIVALS_PER_ROUND] as (typeof ARRIVALS)[number];
  const round = Math.floor(n / ARRIVALS_PER_ROUND);
  const text = review.rating >= 4 ? texts[round % texts.length] : texts[round];
  return text === undefined ? undefined : { ...review, review_content: text };
}

/**
 * The market's script, in ticks of MARKET_TICK_MS: the competitor cuts its price (tick 4, ~40 s in), a
 * new app enters the category and climbs (tick 3 on), and an own app falls eight places (tick 8). The
 * fall needs six snapshots of history before it and persists over two, so its alert comes ~90 s in,
 * explained by the apps that passed it (the competitor among them, with its price cut) and the entrant.
 */
export const DEMO_MARKET: MarketEvent[] = [
  { kind: 'place', handle: 'acme-bundles', category: DEMO_CATEGORY, rank: 5 },
  { kind: 'place', handle: DEMO_RIVAL, category: DEMO_CATEGORY, rank: 8 },
  { kind: 'price', at: 0, handle: DEMO_RIVAL, plan: 'Pro', price: '$19/month' },
  { kind: 'price', at: 4, handle: DEMO_RIVAL, plan: 'Pro', price: '$9/month' },
  {
    kind: 'enter',
    at: 3,
    handle: DEMO_ENTRANT,
    category: DEMO_CATEGORY,
    fromRank: 30,
    toRank: 6,
    overTicks: 8,
    title: 'Nova Bundles',
  },
  { kind: 'rank', at: 8, handle: 'acme-bundles', places: 8 },
];

/** The demo's console channel: its alerts print on the terminal the demo runs in. */
export const DEMO_TERMINAL = 'terminal';

/**
 * A log event the demo's terminal leaves out because the alert printed just above says it: "delivered 1
 * alert(s) of acme-bundles to "terminal"" (notify/deliver.ts). Deliveries to Slack or email still show.
 */
export function alreadyOnScreen(fields: Record<string, unknown>): boolean {
  return fields.channel === DEMO_TERMINAL && typeof fields.deliveries === 'number';
}

/**
 * The demo's config: short intervals, alerts to the terminal, and to Slack or email when configured. With
 * `inboxPort`, its inbox listens there and is `web.publicUrl`, so that every alert links to its review.
 */
export function demoConfig(simulatorUrl: string, inboxPort?: number): Config {
  const extra = demoChannelsFrom();
  const channels: Record<string, unknown> = { [DEMO_TERMINAL]: { type: 'console' } };
  if (extra.slackWebhookUrl) channels.slack = { type: 'slack', webhookUrl: extra.slackWebhookUrl };
  if (extra.email) channels.email = { type: 'email', from: extra.email.from, to: [extra.email.to] };
  const notify = Object.keys(channels);
  const config = parseConfig(
    {
      catalog: { baseUrl: simulatorUrl, apiKey: 'demo', maxRequestsPerSecond: 20 },
      poll: { every: '5s', baselinePages: 2, backoff: '1s' },
      apps: [
        ...DEMO_APPS.map((handle) => ({ handle, notify })),
        { handle: DEMO_RIVAL, role: 'competitor', notify },
      ],
      alerts: {
        lowRating: { maxRating: 2 },
        incident: { count: 3, window: '1h' },
        throttle: { max: 8, window: '1m' },
      },
      channels,
      // A free port unless REVIEWWATCH_HTTP_PORT names one: a real worker may hold 9464.
      http: { port: inboxPort ?? 0 },
      ...(inboxPort ? { web: { publicUrl: inboxUrlOf(inboxPort) } } : {}),
      categories: [{ handle: DEMO_CATEGORY, pages: 2, notify }],
    },
    {},
    'demo config',
  );
  // Below the config's minimums (15m, 1h), which are for the real API's credits: the demo builds its
  // settings itself, so a day of the market fits in a minute.
  return {
    ...config,
    market: { ...config.market, every: MARKET_EVERY_MS },
    listing: { ...config.listing, every: MARKET_EVERY_MS },
  };
}

function inboxUrlOf(port: number): string {
  return `http://${DEMO_HOST}:${port}`;
}

/**
 * A port free on the demo's host now. The inbox's address must be in the config (`web.publicUrl`) before
 * the worker starts, since the alerts' senders are made with it, and a port the server picks itself is
 * known only once it listens; so the demo picks it first.
 */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, DEMO_HOST, resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The port was taken between `freePort` and the server's start: another process was quicker. */
function portTaken(err: unknown): boolean {
  const cause = err instanceof Error ? (err.cause as NodeJS.ErrnoException | undefined) : undefined;
  return cause?.code === 'EADDRINUSE';
}

/** How often the demo picks another free port when one was taken before its inbox could listen. */
const PORT_ATTEMPTS = 3;

export interface Demo {
  worker: Worker;
  simulator: Simulator;
  config: Config;
  /** The triage inbox of this run, on 127.0.0.1, and who may log in to it until the demo stops. */
  inbox: { url: string; user: string; password: string };
  /** Ends the demo user, then the worker and the simulator; once, however often it is called. */
  stop(): Promise<void>;
}

/** The demo's database, emptied: a fresh start each time, as the first poll is a baseline. */
function freshDatabase(dataDir: string): string {
  const databasePath = join(dataDir, 'reviewwatch.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${databasePath}${suffix}`, { force: true });
  return databasePath;
}

/**
 * The demo user, with a password made for this run. It goes into the demo's own database, never
 * DATABASE_PATH's; added before the worker starts, so that its ops server sees a user who can open
 * /metrics and Bull Board.
 */
async function addDemoUser(databasePath: string): Promise<string> {
  const password = randomBytes(15).toString('base64url');
  const store = openStore(databasePath);
  try {
    await addUser(store, { name: DEMO_USER, password });
  } finally {
    store.close();
  }
  return password;
}

function startDemoSimulator(): Promise<Simulator> {
  return startSimulator({
    handles: [...DEMO_APPS, DEMO_RIVAL],
    // Enough other apps for a category of about fifty: the ranks around the own app move with them.
    appCount: 400,
    market: {
      tickMs: MARKET_TICK_MS,
      // Calm ranks (no reshuffle by chance): what moves is the script.
      noise: { dailySd: 0.4, tickSd: 0.1, spikeChance: 0, reshufflePerDay: 0 },
      events: DEMO_MARKET,
    },
    maxReviewsPerApp: 60,
    firstNewReviewId: Math.floor(Date.now() / 1000) * 1000,
  });
}

/**
 * The worker on REVIEWWATCH_HTTP_PORT, if it names a port; else on one picked here, another when it was
 * taken before the inbox could listen. With the config it runs on.
 */
async function startDemoWorker(
  logger: Logger,
  simulator: Simulator,
  databasePath: string,
  queuePrefix: string,
): Promise<{ worker: Worker; config: Config }> {
  const wanted = settingsOf(demoConfig(simulator.url)).http.port;
  for (let attempt = 1; ; attempt++) {
    const config = demoConfig(simulator.url, wanted || (await freePort()));
    const settings = settingsOf(config);
    try {
      const worker = await startWorker(
        {
          ...settings,
          databasePath,
          queuePrefix,
          http: { host: DEMO_HOST, port: config.http.port },
          // Only the demo user opens its inbox, not an admin token that happens to be in the environment.
          admin: {},
          // Its own simulator, not catalog.simulator: every message still says the data is made up.
          simulated: true,
        },
        { mode: 'service', logger, privateQueues: true, stopGraceMs: 5_000 },
      );
      return { worker, config };
    } catch (err) {
      if (wanted || attempt >= PORT_ATTEMPTS || !portTaken(err)) throw err;
    }
  }
}

/**
 * What arrives, once every app's baseline is stored: the burst, the wave about Klaviyo, and one review
 * every few seconds.
 * Returns what ends it.
 */
function runScript(simulator: Simulator, worker: Worker, config: Config): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wave: NodeJS.Timeout | undefined;
  let waveStart: NodeJS.Timeout | undefined;
  const publish = (review: ScriptedReview) => {
    const { handle, ...fields } = review;
    simulator.controls.addReviews(handle, [fields]);
  };
  const baselined = () => config.apps.every((app) => getApp(worker.store.db, app.handle)?.baselineAt);
  const script = async () => {
    while (!stopped && !baselined()) await new Promise((resolve) => setTimeout(resolve, 200));
    if (stopped) return;
    for (const review of BURST) publish(review);
    let waved = 0;
    waveStart = setTimeout(() => {
      wave = setInterval(() => {
        const review = WAVE[waved++];
        if (review === undefined) clearInterval(wave);
        else publish(review);
      }, WAVE_EVERY_MS);
    }, WAVE_AFTER_MS);
    let next = 0;
    timer = setInterval(() => {
      const review = demoArrival(next++);
      if (review !== undefined) publish(review);
    }, ARRIVAL_EVERY_MS);
  };
  void script();
  return () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(waveStart);
    clearInterval(wave);
  };
}

/**
 * A simulated marketplace and a worker watching it. What arrives is scripted, not random: the burst
 * comes as soon as every app's baseline is stored, then one review every few seconds, so every run shows
 * the same alerts in the same order.
 */
export async function startDemo(
  logger: Logger,
  /** Where its database and Redis keys go; tests give their own, so that two runs never meet. */
  place: { dataDir?: string; queuePrefix?: string } = {},
): Promise<Demo> {
  const databasePath = freshDatabase(place.dataDir ?? DATA_DIR);
  const password = await addDemoUser(databasePath);
  const simulator = await startDemoSimulator();
  let started: { worker: Worker; config: Config };
  try {
    started = await startDemoWorker(logger, simulator, databasePath, place.queuePrefix ?? PREFIX);
  } catch (err) {
    await simulator.close();
    throw err;
  }
  const { worker, config } = started;
  const opsUrl = worker.opsUrl;
  if (opsUrl === undefined) {
    await worker.stop();
    await simulator.close();
    throw new Error('the demo started without its inbox');
  }
  const endScript = runScript(simulator, worker, config);
  let stopping: Promise<void> | undefined;
  return {
    worker,
    simulator,
    config,
    inbox: { url: `${config.web.publicUrl ?? opsUrl}/`, user: DEMO_USER, password },
    stop() {
      stopping ??= (async () => {
        endScript();
        try {
          // Its password was on a terminal: the account and its sessions end with the run, before the
          // worker closes the database.
          deleteUser(worker.store.db, DEMO_USER);
          await worker.stop();
        } finally {
          await simulator.close();
        }
      })();
      return stopping;
    },
  };
}

import { CronExpressionParser } from 'cron-parser';
import { IANAZone } from 'luxon';
import { z } from 'zod';
import { HANDLE_PATTERN } from '../catalog/handle.js';
import { errorMessage } from '../errors.js';
import type { ChannelType } from '../kinds.js';
import { LISTING_FIELDS } from '../market/fields.js';
import { DEFAULT_SCORING_RULES, PRIORITIES, scoringOverridesProblems } from '../scoring/index.js';
import { customTopicProblems } from '../topics/index.js';
import { parseDuration } from './duration.js';

/** A duration written as `15m`, `30s`, `1h`, or a number of milliseconds. Parsed to milliseconds. */
const duration = z.union([z.number().int().positive(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value;
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: `"${value}" is not a duration (use e.g. 30s, 15m, 1h)` });
    return z.NEVER;
  }
  return ms;
});

const handle = z
  .string()
  .regex(HANDLE_PATTERN, 'a handle is lowercase letters, digits and hyphens (e.g. my-app)');

/** An http or https URL: the API's, a channel's, the inbox's. */
const httpUrl = z.url({ protocol: /^https?$/ });

const catalog = z.strictObject({
  baseUrl: httpUrl.optional(),
  apiKey: z.string().min(1).optional(),
  /**
   * Poll the built-in simulator instead of an API: for trying reviewwatch out. Never implied: a missing
   * key or base URL is an error, not a reason to make data up.
   */
  simulator: z.boolean().default(false),
  /** Enforced across every worker process sharing the Redis. */
  maxRequestsPerSecond: z.number().positive().default(5),
  timeout: duration.default(10_000),
  /**
   * Requests a day the `budget` schedule may spend, everything counted (polls, extra pages, baselines,
   * reconciliations). The other schedules warn when they are projected to exceed it.
   */
  dailyRequestBudget: z.number().int().positive().optional(),
});

/** How each app's poll interval is chosen (src/schedule/policy.ts). */
export const SCHEDULE_POLICIES = ['fixed', 'adaptive', 'budget'] as const;

const poll = z.strictObject({
  every: duration.default(15 * 60_000),
  /**
   * `fixed`: every app at `every`; `adaptive` and `budget` follow each app's pace (docs/configuration.md,
   * "Choosing a poll schedule").
   */
  schedule: z.enum(SCHEDULE_POLICIES).default('fixed'),
  /** The shortest and longest interval `adaptive` and `budget` give an app. */
  minEvery: duration.default(2 * 60_000),
  maxEvery: duration.default(12 * 3_600_000),
  concurrency: z.number().int().min(1).max(256).default(4),
  /** Steady-state page cap: a poll that finds no stored review within this many pages stops there. */
  maxPages: z.number().int().min(1).max(1_000).default(10),
  /** How deep the first poll of an app reads its history. */
  baselinePages: z.number().int().min(1).max(10_000).default(20),
  /** Attempts of one poll job before it is recorded as failed (429s do not count). */
  attempts: z.number().int().min(1).max(50).default(6),
  /** First retry delay; doubles each attempt, with jitter. */
  backoff: duration.default(5_000),
  /**
   * How often each app gets a deep check against the store (watch/reconcile.ts), at a moment of the
   * period derived from its handle so that many apps spread over it.
   */
  reconcileEvery: duration
    .refine((ms) => ms >= 3_600_000, { message: 'must be at least 1h' })
    .default(24 * 3_600_000),
  /** How many pages, newest first, a reconciliation reads. */
  reconcilePages: z.number().int().min(1).max(1_000).default(5),
});

const app = z.strictObject({
  handle,
  name: z.string().min(1).optional(),
  role: z.enum(['own', 'competitor']).default('own'),
  /** How much a minute of delay on this app's reviews counts; default 1 for own apps, 0.0005 for competitors. */
  weight: z.number().positive().max(1_000).optional(),
  notify: z.array(z.string().min(1)).default([]),
  /**
   * The longest this app may go between polls under any schedule. Own apps default to `poll.every` (an
   * own app is never polled less often than that), competitors to `poll.maxEvery`.
   */
  maxEvery: duration.optional(),
});

const priority = z.enum(PRIORITIES);

const alerts = z.strictObject({
  lowRating: z.strictObject({ maxRating: z.number().int().min(1).max(5).default(3) }).prefault({}),
  ratingDrop: z
    .strictObject({
      minDrop: z.number().positive().max(5).default(0.05),
      /** Also alert when the rating the listing displays (one decimal) falls, however little. */
      displayed: z.boolean().default(true),
      /**
       * After a drop alerted, the same fall alerts again only once the average has climbed back this much:
       * above the lowest level alerted on (the average), above the rounding boundary (the displayed rating).
       */
      recovery: z.number().positive().max(5).default(0.05),
      /**
       * …and stayed there this long: a bounce back for a poll or two does not re-arm a fall already said.
       */
      recoveryHold: duration.default(24 * 3_600_000),
      /**
       * A competitor's drop goes into the weekly digest (`digest`), or alerts at once like an own app's
       * (`immediate`).
       */
      competitors: z.enum(['digest', 'immediate']).default('digest'),
    })
    .prefault({}),
  /** This many low reviews of one app within `window` raise one "possible incident" alert. */
  incident: z
    .strictObject({
      count: z.number().int().min(2).max(1_000).default(3),
      window: duration.default(24 * 3_600_000),
    })
    .prefault({}),
  /** More new low reviews of one app in one poll than this go out as one grouped message per channel. */
  groupAbove: z.number().int().min(1).max(1_000).default(5),
  /**
   * At most `max` messages per app and channel within `window`; the rest wait for the next grouped one,
   * which goes out at most `maxHold` after the first of them was held, window free or not.
   */
  throttle: z
    .strictObject({
      max: z.number().int().min(1).max(10_000).default(10),
      window: duration.default(3_600_000),
      maxHold: duration.default(10 * 60_000),
    })
    .prefault({}),
  scoring: z
    .strictObject({
      keywordGroups: z
        .record(
          z.string().min(1),
          z.strictObject({
            label: z.string().min(1).optional(),
            weight: z.number().min(0).max(100).optional(),
            words: z.array(z.string().min(1)).optional(),
          }),
        )
        .optional(),
      priorities: z
        .strictObject({
          critical: z.number().min(0).max(100).optional(),
          high: z.number().min(0).max(100).optional(),
          medium: z.number().min(0).max(100).optional(),
        })
        .optional(),
    })
    .prefault({}),
});

/** A channel gets the alerts at or above its priority. */
const minPriority = priority.default('low');

/**
 * A chat service reached through one webhook URL, which holds its secret (a token or a signature): Slack,
 * Teams and Discord alike.
 */
function chatWebhookChannel<T extends 'slack' | 'teams' | 'discord'>(type: T) {
  return z.strictObject({ type: z.literal(type), webhookUrl: httpUrl, minPriority });
}

const slackChannel = chatWebhookChannel('slack');

const emailChannel = z.strictObject({
  type: z.literal('email'),
  from: z.string().min(3),
  to: z.array(z.email()).min(1),
  minPriority,
});

/**
 * A Standard Webhooks secret: `whsec_` and the base64 of the key (docs/webhooks.md). Keys shorter than
 * 16 bytes are refused: anyone could guess them.
 */
const webhookSecret = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, 'a webhook secret is whsec_ followed by base64 (docs/webhooks.md)')
  .refine((secret) => Buffer.from(secret.slice('whsec_'.length), 'base64').length >= 16, {
    message: 'a webhook secret holds at least 16 bytes (24 or more base64 characters after whsec_)',
  });

/**
 * Signed JSON to any URL (docs/webhooks.md). Several secrets (a list) sign every message once each, the
 * first being the current one: a receiver rotating its secret accepts either until the old one goes.
 */
const webhookChannel = z.strictObject({
  type: z.literal('webhook'),
  url: httpUrl,
  secret: z.union([webhookSecret, z.array(webhookSecret).min(1).max(5)]),
  minPriority,
});

/**
 * A Microsoft Teams Workflows webhook ("When a Teams webhook request is received"; docs/configuration.md).
 * Its URL carries the flow's signature (`sig=`): a secret, redacted from logs like Slack's.
 */
const teamsChannel = chatWebhookChannel('teams');

/** A Discord channel webhook; its URL holds the webhook's token, so it is a secret too. */
const discordChannel = chatWebhookChannel('discord');

/** Prints alerts in the terminal (stdout): the demo's channel, and handy beside a log collector. */
const consoleChannel = z.strictObject({ type: z.literal('console'), minPriority });

/**
 * Per channel type (src/kinds.ts), the config it takes: the config column of the channel table
 * (notify/channel-types.ts), kept here because the config is read below the senders.
 */
export const CHANNEL_SCHEMAS = {
  slack: slackChannel,
  email: emailChannel,
  console: consoleChannel,
  webhook: webhookChannel,
  teams: teamsChannel,
  discord: discordChannel,
} as const satisfies { [T in ChannelType]: z.ZodType<{ type: T }> };

const channel = z.discriminatedUnion('type', [
  CHANNEL_SCHEMAS.slack,
  CHANNEL_SCHEMAS.email,
  CHANNEL_SCHEMAS.console,
  CHANNEL_SCHEMAS.webhook,
  CHANNEL_SCHEMAS.teams,
  CHANNEL_SCHEMAS.discord,
]);

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/** The union names every channel type and no other: one left out of the list above fails here. */
export type ChannelUnionComplete = Holds<Same<z.infer<typeof channel>['type'], ChannelType>>;

/** The time zone of the digest's week and of the daily prune, when `digest.timezone` names none. */
export const DEFAULT_TIMEZONE = 'UTC';

/** The weekly digest; with no channels (the default) none is sent, and its time zone still applies. */
const digest = z.strictObject({
  schedule: z.string().min(1).default('0 9 * * 1'),
  timezone: z.string().min(1).default(DEFAULT_TIMEZONE),
  channels: z.array(z.string().min(1)).default([]),
});

const DAY_MS = 86_400_000;

/** An age of at least a day: nothing the prune deletes is read within a day of being written. */
const age = (days: number) =>
  duration.refine((ms) => ms >= DAY_MS, { message: 'must be at least 1d' }).default(days * DAY_MS);

/** How long the store keeps what polls and alerts record (store/retention.ts); reviews are kept forever. */
const retention = z
  .strictObject({
    /** Run the prune as a daily job of `start`; `reviewwatch prune` works either way. */
    enabled: z.boolean().default(true),
    /** When, as cron in the digest's time zone (or UTC): a quiet hour. */
    schedule: z.string().min(1).default('30 3 * * *'),
    pollRuns: age(7),
    /** Deliveries of alerts whose every delivery was sent this long ago; the alert row stays. */
    sentAlerts: age(30),
    digestRuns: age(365),
    /** Every snapshot for `fullDetail`, then the last of each hour until `hourly`, then one a day. */
    ratingSnapshots: z
      .strictObject({ fullDetail: age(2), hourly: age(60) })
      .refine((s) => s.hourly >= s.fullDetail, {
        message: 'hourly must be at least fullDetail',
        path: ['hourly'],
      })
      .prefault({}),
  })
  .superRefine((value, ctx) => {
    try {
      CronExpressionParser.parse(value.schedule);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        path: ['schedule'],
        message: `not a cron schedule (${errorMessage(err)})`,
      });
    }
  });

/** The ops HTTP server of `start` (health, metrics, Bull Board); REVIEWWATCH_HTTP_PORT/HOST override it. */
const http = z.strictObject({
  /** 0 picks a free port (tests). */
  port: z.number().int().min(0).max(65_535).default(9464),
  /** Loopback by default: /healthz and /readyz need no credentials, so they are not exposed unless asked. */
  host: z.string().min(1).default('127.0.0.1'),
  enabled: z.boolean().default(true),
});

/** The triage inbox the ops server serves (src/web/). */
const web = z.strictObject({
  /**
   * Where people reach the inbox, e.g. https://reviews.example.com: the session cookie is Secure when it is
   * https, and the login page checks that forms come from it.
   */
  publicUrl: httpUrl
    .refine((url) => new URL(url).pathname === '/' && !new URL(url).search, {
      message: 'the inbox is served at the root: give only the scheme, host and port',
    })
    .optional(),
  /** How long a login lasts. */
  sessionTtl: duration.default(12 * 3_600_000),
});

/** A category whose ranks are tracked (endpoint 2): its first `pages` pages, every `market.every`. */
const category = z.strictObject({
  handle,
  /** 24 entries a page, sponsored ones included; each page is one request per snapshot. */
  pages: z.number().int().min(1).max(10).default(2),
  notify: z.array(z.string().min(1)).default([]),
});

const market = z.strictObject({
  /** How often each category in `categories` is snapshotted. */
  every: duration
    .refine((ms) => ms >= 15 * 60_000, { message: 'must be at least 15m' })
    .default(6 * 3_600_000),
});

const listing = z.strictObject({
  /** How often each watched app's listing (endpoint 3) and its developer (endpoint 4) are read. */
  every: duration.refine((ms) => ms >= 3_600_000, { message: 'must be at least 1h' }).default(24 * 3_600_000),
  /** Listing fields whose changes are stored but never alerted. */
  ignore: z.array(z.enum(LISTING_FIELDS)).default([]),
});

/**
 * Custom topics (src/topics/custom.ts): a new name is a topic of its own, a built-in name adds words to
 * that topic or changes its severity weight. Names and words are checked with the other cross-key rules.
 */
const topics = z.record(
  z.string().min(1),
  z.strictObject({
    words: z.array(z.string().min(1)).optional(),
    weight: z.number().optional(),
  }),
);

const configShape = z.strictObject({
  catalog: catalog.prefault({}),
  poll: poll.prefault({}),
  apps: z.array(app).min(1, 'watch at least one app'),
  alerts: alerts.prefault({}),
  channels: z
    .record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'a channel name is letters, digits, - and _'), channel)
    .default({}),
  digest: digest.prefault({}),
  http: http.prefault({}),
  web: web.prefault({}),
  retention: retention.prefault({}),
  categories: z.array(category).default([]),
  market: market.prefault({}),
  listing: listing.prefault({}),
  topics: topics.default({}),
});

type ConfigShape = z.output<typeof configShape>;

/** A rule that spans keys, broken: where and how. */
interface ConfigProblem {
  path: PropertyKey[];
  message: string;
}

/** Each handle once, and every channel it notifies defined (apps and categories alike). */
function watchedListProblems(
  key: 'apps' | 'categories',
  entries: ReadonlyArray<{ handle: string; notify: readonly string[] }>,
  channels: ConfigShape['channels'],
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (seen.has(entry.handle)) {
      problems.push({ path: [key, i, 'handle'], message: `"${entry.handle}" is listed twice` });
    }
    seen.add(entry.handle);
    entry.notify.forEach((name, j) => {
      if (!Object.hasOwn(channels, name))
        problems.push({ path: [key, i, 'notify', j], message: `no channel named "${name}"` });
    });
  });
  return problems;
}

/** Every channel the digest goes to is defined. */
function digestChannelProblems(config: ConfigShape): ConfigProblem[] {
  return config.digest.channels.flatMap((name, j) =>
    Object.hasOwn(config.channels, name)
      ? []
      : [{ path: ['digest', 'channels', j], message: `no channel named "${name}"` }],
  );
}

/** The digest's schedule is cron and its time zone is IANA. */
function digestScheduleProblems(config: ConfigShape): ConfigProblem[] {
  const { digest } = config;
  const problems: ConfigProblem[] = [];
  try {
    CronExpressionParser.parse(digest.schedule, { tz: digest.timezone });
  } catch (err) {
    problems.push({ path: ['digest', 'schedule'], message: `not a cron schedule (${errorMessage(err)})` });
  }
  if (!IANAZone.isValidZone(digest.timezone)) {
    problems.push({ path: ['digest', 'timezone'], message: 'not an IANA time zone (e.g. Europe/Berlin)' });
  }
  return problems;
}

/** The poll interval lies within its bounds, and a budget schedule has a budget. */
function pollProblems(config: ConfigShape): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const { schedule, every, minEvery, maxEvery } = config.poll;
  if (minEvery > maxEvery) {
    problems.push({ path: ['poll', 'minEvery'], message: 'must be at most poll.maxEvery' });
  } else if (schedule !== 'fixed' && (every < minEvery || every > maxEvery)) {
    problems.push({
      path: ['poll', 'every'],
      message: `must lie between poll.minEvery and poll.maxEvery when poll.schedule is ${schedule}`,
    });
  }
  if (schedule === 'budget' && config.catalog.dailyRequestBudget === undefined) {
    problems.push({
      path: ['catalog', 'dailyRequestBudget'],
      message: 'required when poll.schedule is budget (requests a day, e.g. 20000)',
    });
  }
  return problems;
}

/** A catalog base URL and API key come together or not at all. */
function catalogProblems(config: ConfigShape): ConfigProblem[] {
  const { baseUrl, apiKey } = config.catalog;
  if (baseUrl && !apiKey) {
    return [
      { path: ['catalog', 'apiKey'], message: 'required when a base URL is set (set CATALOG_API_KEY)' },
    ];
  }
  if (apiKey && !baseUrl) {
    return [
      { path: ['catalog', 'baseUrl'], message: 'required when an API key is set (set CATALOG_API_BASE_URL)' },
    ];
  }
  return [];
}

/** A rule that spans keys: the top-level keys it reads, and its problems with them. */
interface CrossKeyRule {
  reads: ReadonlyArray<keyof ConfigShape>;
  problems: (config: ConfigShape) => ConfigProblem[];
}

/** Every rule that spans keys, in the order its problems are reported. */
const CROSS_KEY_RULES: readonly CrossKeyRule[] = [
  {
    reads: ['apps', 'channels'],
    problems: (config) => watchedListProblems('apps', config.apps, config.channels),
  },
  {
    reads: ['categories', 'channels'],
    problems: (config) => watchedListProblems('categories', config.categories, config.channels),
  },
  { reads: ['digest', 'channels'], problems: digestChannelProblems },
  {
    reads: ['topics'],
    problems: (config) =>
      customTopicProblems(config.topics).map((problem) => ({
        path: ['topics', ...problem.path],
        message: problem.message,
      })),
  },
  {
    reads: ['alerts', 'topics'],
    problems: (config) =>
      scoringOverridesProblems(DEFAULT_SCORING_RULES, config.alerts.scoring, config.topics).map(
        (problem) => ({
          path: ['alerts', 'scoring', ...problem.path],
          message: problem.message,
        }),
      ),
  },
  { reads: ['digest'], problems: digestScheduleProblems },
  { reads: ['poll', 'catalog'], problems: pollProblems },
  { reads: ['catalog'], problems: catalogProblems },
];

export const configSchema = configShape.superRefine(
  (config, ctx) => {
    // A rule runs unless a key it reads did not parse to its type (an issue zod stops at; a failed bound or
    // refinement leaves a value of the right type): the others' problems are named in the same run, so a
    // config with a bad value and an unknown channel is not fixed in two rounds.
    const broken = new Set(
      ctx.issues.filter((issue) => issue.continue !== true).map((issue) => issue.path?.[0]),
    );
    for (const rule of CROSS_KEY_RULES) {
      if (rule.reads.some((key) => broken.has(key))) continue;
      for (const { path, message } of rule.problems(config)) ctx.addIssue({ code: 'custom', path, message });
    }
  },
  // Also after other keys failed, which zod skips a refinement for by default, on a config that is a mapping.
  // Zod still skips it after an issue it cannot continue past anywhere (a fraction where an integer goes).
  {
    when: (payload) =>
      typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
  },
);

export type Config = z.output<typeof configSchema>;
export type AppConfig = Config['apps'][number];
export type ChannelConfig = Config['channels'][string];

/** The config of a channel of one type: `ChannelConfigOf<'slack'>` has its `webhookUrl`. */
export type ChannelConfigOf<T extends ChannelType> = Extract<ChannelConfig, { type: T }>;
export type CategoryConfig = Config['categories'][number];

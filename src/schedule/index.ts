/**
 * Adaptive poll scheduling: each app's interval from its review arrival rate (rate.ts) under one of the
 * policies of `poll.schedule` (policy.ts, with solvers.ts, incident.ts and reservations.ts). This file
 * joins them to the config and the store: one call plans every watched app.
 */
import type { Config } from '../config/schema.js';
import { appArrivals } from '../store/arrivals.js';
import type { StoreDb } from '../store/db.js';
import { competitorDevelopers, marketCost, marketMaxStretch } from './market.js';
import {
  type AppDemand,
  appWeight,
  DEFAULT_LOW_SHARE,
  DEFAULT_RELAX_RATIO,
  type Plan,
  planSchedule,
  type ScheduleSettings,
} from './policy.js';
import { createRateEstimator, DEFAULT_RATE_MODEL, historyHorizonMs, type RateModel } from './rate.js';
import { reservedPerDay } from './reservations.js';

export * from './incident.js';
export * from './market.js';
export * from './policy.js';
export * from './rate.js';
export * from './reservations.js';
export { BUDGET_MARGIN, LONGEST_INTERVAL_MS } from './solvers.js';
export { fmtDuration } from './units.js';

/** How many of an app's newest reviews the rate is judged on: enough for ±10%, cheap for 10,000 apps. */
export const ARRIVALS_READ_PER_APP = 100;

export interface PlanFromStoreOptions {
  now: number;
  /**
   * Requests a day spent outside the planned polls. By default: one reconciliation of each app per
   * `poll.reconcileEvery` at `poll.reconcilePages` pages, plus `poll.baselinePages` for each app not yet
   * baselined; the digest reads only the store.
   */
  reservedPerDay?: number;
  model?: RateModel;
}

/** The config's scheduling settings, with what is reserved from the budget and the market reads. */
export function scheduleSettings(config: Config, reserved: number, marketPerDay = 0): ScheduleSettings {
  return {
    market: { perDay: marketPerDay, maxStretch: marketMaxStretch(config) },
    policy: config.poll.schedule,
    everyMs: config.poll.every,
    minEveryMs: config.poll.minEvery,
    maxEveryMs: config.poll.maxEvery,
    dailyRequestBudget: config.catalog.dailyRequestBudget ?? null,
    reservedPerDay: reserved,
    relaxRatio: DEFAULT_RELAX_RATIO,
    lowShare: DEFAULT_LOW_SHARE,
  };
}

/**
 * Plans every watched app from the store's history: the store query (store/arrivals.ts), the rate model,
 * the policy. Costs one query (about a second at 10,000 busy apps, see bench/README.md), so call it on a
 * timer, not per poll; between plans, `intervalAfterPoll` tightens one app after a poll.
 */
export function planFromStore(db: StoreDb, config: Config, options: PlanFromStoreOptions): Plan {
  const { now } = options;
  const model = options.model ?? DEFAULT_RATE_MODEL;
  const handles = config.apps.map((app) => app.handle);
  const histories = appArrivals(db, handles, {
    since: now - historyHorizonMs(model),
    limit: ARRIVALS_READ_PER_APP,
  });
  const estimate = createRateEstimator(now, model);
  const demands = config.apps.map((app, i): AppDemand => {
    const history = histories[i];
    if (!history || history.handle !== app.handle) throw new Error(`no history row for ${app.handle}`);
    return {
      handle: app.handle,
      role: app.role,
      weight: appWeight(app),
      rate: estimate(history),
      lastIncidentAt: history.lastIncidentAt,
      ...capOf(config, app),
    };
  });
  const reserved =
    options.reservedPerDay ??
    reservedPerDay({
      apps: handles.length,
      pendingBaselines: histories.filter((h) => h.baselineAt === null).length,
      baselinePages: config.poll.baselinePages,
      reconcileEveryMs: config.poll.reconcileEvery,
      reconcilePages: config.poll.reconcilePages,
    });
  const market = marketCost(config, competitorDevelopers(db, config)).total;
  return planSchedule(demands, scheduleSettings(config, reserved, market), now);
}

/**
 * An own app is never polled less often than `poll.every`, whatever the policy or the budget, unless its
 * own `maxEvery` says otherwise; a competitor may go to `poll.maxEvery` (and a budget past it).
 */
export function capOf(config: Config, app: Config['apps'][number]): { maxEveryMs?: number } {
  if (app.maxEvery !== undefined) return { maxEveryMs: app.maxEvery };
  return app.role === 'own' ? { maxEveryMs: config.poll.every } : {};
}

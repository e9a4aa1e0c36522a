/**
 * Incident tightening, the one addition the rule of solvers.ts does not cover, for incidents, where
 * arrivals are not Poisson: when a poll of an own app finds more new low reviews than the app's own pace
 * explains (isIncident: fewer than 1 in 100 polls would find that many by chance; for a quiet app, one
 * low review), its next poll comes after `minEvery`, and each interval after that is at most half the
 * time since that poll (so it grows 1.5× a poll) until it is back at the plan's. A busy app's routine low
 * review does not trigger it: polls spent on a Poisson app right after a review buy nothing, since its
 * next review is no nearer. `budget` pays for the tightening out of the budget, and drops it when the
 * budget cannot.
 *
 * Pure, like the rest of the schedule.
 */
import type { AppRole, ScheduleSettings } from './policy.js';
import { DAY_MS as DAY_IMPORTED } from './rate.js';
import { roundInterval } from './units.js';

/** A local copy: an imported binding is slower to read in the solver's inner loops under some loaders. */
const DAY_MS = DAY_IMPORTED;

/**
 * The interval after a poll at `now`: the planned one, or while an incident may be running (a poll found
 * one at `lastIncidentAt`) at most `relaxRatio` × the time since, and never below `minEvery`. The poll
 * worker applies it after each poll (see afterPoll); the plan applies it when it is made.
 */
export function intervalAfterPoll(
  entry: { plannedMs: number; tightens: boolean },
  lastIncidentAt: number | null,
  now: number,
  settings: Pick<ScheduleSettings, 'minEveryMs' | 'relaxRatio'>,
): number {
  const { plannedMs } = entry;
  if (!entry.tightens || settings.relaxRatio <= 0 || lastIncidentAt === null) return plannedMs;
  const since = Math.max(0, now - lastIncidentAt);
  const cap = Math.max(settings.minEveryMs, roundInterval(settings.relaxRatio * since));
  return Math.min(plannedMs, cap);
}

/** What a finished poll tells the schedule. */
export interface PollSeen {
  /** When the poll started (epoch ms). */
  at: number;
  /** When the app's previous poll started; null for its first. */
  previousAt: number | null;
  /** New reviews at or below `alerts.lowRating.maxRating` the poll found (PollJobResult.lowRated). */
  newLowReviews: number;
}

/** New low reviews in one poll that the app's own pace would explain less often than this: an incident. */
export const INCIDENT_CHANCE = 0.01;

/**
 * Whether a poll's new low reviews are an incident rather than the app's usual pace: more than a Poisson
 * count with the expected number of low reviews since the previous poll reaches in 99 polls of 100.
 */
export function isIncident(
  entry: { plannedMs: number; tightens: boolean; ratePerDay: number },
  poll: PollSeen,
  settings: Pick<ScheduleSettings, 'lowShare'>,
): boolean {
  if (!entry.tightens || poll.newLowReviews <= 0) return false;
  const span = poll.previousAt === null ? entry.plannedMs : Math.max(0, poll.at - poll.previousAt);
  return poll.newLowReviews >= incidentThreshold((entry.ratePerDay * settings.lowShare * span) / DAY_MS);
}

/**
 * After each poll of an app: whether it found an incident, and the interval to its next poll. The
 * worker keeps `lastIncidentAt` per app in the store (queue/poll-schedule.ts).
 */
export function afterPoll(
  entry: { plannedMs: number; tightens: boolean; ratePerDay: number },
  lastIncidentAt: number | null,
  poll: PollSeen,
  settings: Pick<ScheduleSettings, 'minEveryMs' | 'relaxRatio' | 'lowShare'>,
): { intervalMs: number; lastIncidentAt: number | null } {
  const incidentAt = isIncident(entry, poll, settings) ? poll.at : lastIncidentAt;
  return { intervalMs: intervalAfterPoll(entry, incidentAt, poll.at, settings), lastIncidentAt: incidentAt };
}

/** The fewest low reviews in one poll that count as an incident when μ are expected: P(K ≥ k) < 1%. */
export function incidentThreshold(expected: number): number {
  let k = 1;
  let term = Math.exp(-expected);
  // P(K ≥ 1) = 1 − e^(−μ), kept precise for the tiny μ of quiet apps.
  let tail = -Math.expm1(-expected);
  while (tail >= INCIDENT_CHANCE && k < 1_000) {
    tail -= term * (expected / k);
    term *= expected / k;
    k++;
  }
  return k;
}

/** How often a poll with μ low reviews expected finds an incident by chance alone: P(K ≥ threshold). */
function chanceIncident(expected: number): number {
  const k = incidentThreshold(expected);
  let term = Math.exp(-expected);
  let below = term;
  for (let j = 1; j < k; j++) {
    term *= expected / j;
    below += term;
  }
  return k === 1 ? -Math.expm1(-expected) : Math.max(0, 1 - below);
}

/**
 * Only own apps are tightened: an incident on a competitor's listing can wait for the digest, and
 * tightening the thousands of competitors a watch list may hold would cost more than polling them.
 */
export function tightensRole(role: AppRole): boolean {
  return role === 'own';
}

/**
 * Expected polls a day the tightening adds to an app. Incidents come by chance alone (chanceIncident) at
 * about one per poll with μ = λ · lowShare · T expected low reviews when μ is small (a quiet app: every
 * low review), far rarer otherwise; g apart on average. With r = relaxRatio and m = minEvery, each makes
 * the app poll every m until r × the time since passes m (for m / r), then each interval (1 + r) times the
 * last, until the planned T is back (T / r after it) or the next one restarts it. Over a span
 * s = min(g, T / r) that is min(s, m / r) / m + log⁺(r s / m) / log(1 + r) polls where the plan would
 * have made s / T: log(T / m) / log(1 + r) more when incidents are rare. Real incidents add their own.
 */
export function tighteningPerDay(
  tightens: boolean,
  ratePerDay: number,
  intervalMs: number,
  settings: Pick<ScheduleSettings, 'minEveryMs' | 'relaxRatio' | 'lowShare'>,
): number {
  const r = settings.relaxRatio;
  const m = settings.minEveryMs;
  if (!tightens || r <= 0 || intervalMs <= m || ratePerDay <= 0) return 0;
  const expected = (ratePerDay * settings.lowShare * intervalMs) / DAY_MS;
  const triggers = (DAY_MS / intervalMs) * chanceIncident(expected);
  if (triggers <= 0) return 0;
  const gap = DAY_MS / triggers;
  return triggers * extraPolls(intervalMs, Math.log(intervalMs / m), gap, Math.log((r * gap) / m), m, r);
}

/** Polls a tightening adds before the next low review or full relaxation (see tighteningPerDay). */
function extraPolls(t: number, logTm: number, gap: number, logRgm: number, m: number, r: number): number {
  const span = Math.min(gap, t / r);
  const flat = Math.min(span, m / r) / m;
  const growing = Math.max(0, Math.min(logRgm, logTm)) / Math.log(1 + r);
  return Math.max(0, flat + growing - span / t);
}

import { CronExpressionParser } from 'cron-parser';
import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChannelSender } from '../notify/sender.js';
import { coverageNote } from '../render/index.js';
import type { Store } from '../store/db.js';
import { claimDigest, digestRunsOf, finishDigest } from '../store/digests.js';
import {
  collectDigest,
  coverageOf,
  type DigestPeriod,
  digestInputOf,
  periodKey,
  previousWeek,
  watchedSince,
} from './index.js';

export interface DigestDeps {
  config: Config;
  store: Store;
  senders: ReadonlyMap<string, ChannelSender>;
  logger: Logger;
  /** The data is the built-in simulator's: every digest says so. */
  simulated?: boolean;
}

export interface DigestOutcome {
  channel: string;
  /**
   * busy: another worker claimed it moments ago and may still be sending it. not-watched: the period
   * ended before reviewwatch's first successful poll, so there is nothing to report (`reason` says so).
   */
  status: 'sent' | 'already-sent' | 'busy' | 'failed' | 'not-watched';
  subject?: string;
  error?: string;
  reason?: string;
}

/**
 * Sends one period's digest to each digest channel that has not had it, rendered by the channel's type:
 * email gets the full digest, Slack the compact summary. The digest_runs claim makes it once per period and channel,
 * whoever runs it. A period that ended before the first successful poll gets no digest (and no claim):
 * every number in it would be made of what nobody watched.
 */
export async function sendDigest(
  deps: DigestDeps,
  period: DigestPeriod,
  now = new Date(),
): Promise<DigestOutcome[]> {
  const { config, store, logger } = deps;
  const { channels } = config.digest;
  const key = { periodStart: periodKey(period), periodEnd: period.end.toISOString() };
  const watched = unwatchedReason(deps, period);
  if (watched !== undefined) {
    logger.info({ period: period.label }, `no weekly digest for ${period.label}: ${watched}`);
    return channels
      .filter((channel) => deps.senders.has(channel))
      .map((channel) => ({ channel, status: 'not-watched', reason: watched }));
  }
  let data: ReturnType<typeof collectDigest> | undefined;
  const outcomes: DigestOutcome[] = [];
  for (const channel of channels) {
    const sender = deps.senders.get(channel);
    if (!sender) continue;
    const claim = claimDigest(store.db, { ...key, channel }, now);
    if (claim !== 'claimed') {
      outcomes.push({ channel, status: claim === 'sent' ? 'already-sent' : 'busy' });
      continue;
    }
    // Everything after the claim is inside the try: a claim left "claimed" would read as busy for minutes.
    try {
      data ??= collectDigest(store.db, digestInputOf(config, period, now));
      // With the inbox's address, the triage figures link to its views of the open reviews.
      const inboxUrl = config.web.publicUrl;
      const source = { simulated: deps.simulated === true, ...(inboxUrl ? { inboxUrl } : {}) };
      // Each channel type renders the digest its own way (notify/channel-types.ts).
      const subject = await sender.sendDigest(data, source);
      finishDigest(store.db, { periodStart: key.periodStart, channel }, { sentAt: new Date(), subject });
      logger.info(
        { channel, period: period.label },
        `weekly digest for ${period.label} sent to "${channel}"`,
      );
      outcomes.push({ channel, status: 'sent', subject });
    } catch (err) {
      const error = errorMessage(err);
      finishDigest(store.db, { periodStart: key.periodStart, channel }, { error });
      logger.error({ channel, period: period.label }, `weekly digest to "${channel}" failed: ${error}`);
      outcomes.push({ channel, status: 'failed', error });
    }
  }
  return outcomes;
}

/** The period a digest fired at `at` reports on: the last complete week before it, in the digest's zone. */
export function periodForRun(config: Config, at: Date): DigestPeriod {
  return previousWeek(at, config.digest.timezone);
}

/**
 * The period whose digest is due but not sent: when the last scheduled time has passed since that week
 * ended and a channel has no sent run for it. A worker that was down at send time catches up with it.
 */
export function overdueDigest(deps: DigestDeps, now: Date): DigestPeriod | undefined {
  const digest = deps.config.digest;
  if (digest.channels.length === 0) return undefined;
  const lastFire = CronExpressionParser.parse(digest.schedule, { currentDate: now, tz: digest.timezone })
    .prev()
    .toDate();
  const period = periodForRun(deps.config, lastFire);
  if (lastFire.getTime() < period.end.getTime()) return undefined;
  // The first start after installation: the week before it was not watched, so nothing is owed.
  if (unwatchedReason(deps, period) !== undefined) return undefined;
  const sent = new Set(
    digestRunsOf(deps.store.db, periodKey(period))
      .filter((run) => run.status === 'sent')
      .map((run) => run.channel),
  );
  return digest.channels.every((channel) => sent.has(channel)) ? undefined : period;
}

/** Why `period` gets no digest (it ended before the first successful poll), or undefined when it does. */
function unwatchedReason(deps: DigestDeps, period: DigestPeriod): string | undefined {
  const handles = deps.config.apps.map((app) => app.handle);
  const coverage = coverageOf(period, watchedSince(deps.store.db, handles));
  return coverage.kind === 'none' ? coverageNote(coverage, period.timezone) : undefined;
}

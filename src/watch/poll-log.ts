/** What a poll says in the log: its outcome, its burst gap, and a baseline's progress page by page. */
import type { Logger } from '../log.js';
import { plural } from '../util/plural.js';
import type { PollOutcome, PollProgress } from './poll.js';

export function logOutcome(
  logger: Logger,
  outcome: PollOutcome,
  pages: number,
  wasUnavailable: boolean,
): void {
  const app = outcome.handle;
  if (wasUnavailable) logger.info({ app }, `${app} answers again: no longer marked unavailable`);
  const fallback = outcome.newReviews.filter((r) => r.identity.startsWith('fp:'));
  for (const review of fallback) {
    logger.info(
      { app, identity: review.identity, reviewer: review.reviewer, date: review.createdDate },
      'review came without a review_id: stored under a fingerprint of reviewer, date and content',
    );
  }
  logGap(logger, outcome, pages);
  const fields = {
    app,
    requests: outcome.requests,
    new: outcome.newReviews.length,
    edited: outcome.editedReviews.length,
    rating: outcome.summary?.average === null ? undefined : outcome.summary?.average?.toFixed(2),
  };
  if (outcome.status === 'baseline') {
    logger.info(fields, `${app}: baseline stored ${outcome.newReviews.length} reviews (history, no alerts)`);
  } else if (outcome.newReviews.length > 0 || outcome.editedReviews.length > 0) {
    logger.info(fields, `${app}: ${outcome.newReviews.length} new, ${outcome.editedReviews.length} edited`);
  } else {
    logger.debug(fields, `${app}: nothing new`);
  }
  if (outcome.restored > 0) {
    logger.info(
      { app, restored: outcome.restored },
      `${app}: ${plural(outcome.restored, 'review')} marked removed listed again: restored`,
    );
  }
}

function logGap(logger: Logger, outcome: PollOutcome, pages: number): void {
  const { gap, handle: app } = outcome;
  if (!gap) return;
  const unread = gap.unread === null ? 'an unknown number of' : `about ${gap.unread}`;
  if (gap.state === 'opened') {
    logger.warn(
      { app, pages, unread: gap.unread },
      `${app}: no stored review within ${pages} pages (poll.maxPages): ${unread} older reviews are unread; the next polls read on from here`,
    );
  } else if (gap.state === 'open') {
    logger.info(
      { app, pages, unread: gap.unread },
      `${app}: reading on into the burst: ${unread} reviews still unread`,
    );
  } else {
    logger.info({ app, pages }, `${app}: burst read to its end: no review unread`);
  }
}

export function logBaselineProgress(logger: Logger, progress: PollProgress, pageCap: number): void {
  const of = Math.min(pageCap, progress.totalPages ?? pageCap);
  logger.info(
    { app: progress.handle, page: progress.page, of },
    `${progress.handle}: baseline page ${progress.page}/${of}, ${progress.reviewsSeen} reviews so far`,
  );
}

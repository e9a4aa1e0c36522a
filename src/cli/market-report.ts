/**
 * What `reviewwatch market` shows: the overview, or one category over a span. A category it knows nothing
 * of is a usage error, said here rather than in the views the pages share.
 */
import { ExitCode, ReviewwatchError } from '../errors.js';
import type { Db } from '../store/db.js';
import { CATEGORY_DAYS, type CategoryView, categoryView } from '../web/market-views/category.js';
import type { MarketViewInput } from '../web/market-views/input.js';
import { type MarketOverview, marketOverview } from '../web/market-views/overview.js';

/** `reviewwatch market --category` for a category neither tracked nor ever snapshotted. */
export class UnknownCategoryError extends ReviewwatchError {
  constructor(handle: string, tracked: readonly string[]) {
    super(
      `unknown category "${handle}": it is not under categories in the config and was never snapshotted (tracked: ${
        tracked.length > 0 ? tracked.join(', ') : 'none'
      })`,
      { exitCode: ExitCode.Usage },
    );
  }
}

export type MarketReport =
  | { kind: 'overview'; overview: MarketOverview }
  | { kind: 'category'; category: CategoryView; days: number };

/**
 * What `reviewwatch market` shows: the overview, or one category over `days` (CATEGORY_DAYS unless
 * given). Throws UnknownCategoryError for a category it knows nothing of.
 */
export function marketReport(
  db: Db,
  input: MarketViewInput,
  options: { now: Date; category?: string | undefined; days?: number },
): MarketReport {
  if (options.category === undefined) {
    return { kind: 'overview', overview: marketOverview(db, input, options.now) };
  }
  const days = options.days ?? CATEGORY_DAYS;
  const category = categoryView(db, input, options.category, { now: options.now, days });
  if (!category) throw new UnknownCategoryError(options.category, input.categories);
  return { kind: 'category', category, days };
}

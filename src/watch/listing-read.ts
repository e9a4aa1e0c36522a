/**
 * One read of a watched app's listing (endpoint 3): normalised and hashed (market/listing.ts), stored as a
 * new version only when the hash moved, diffed field by field against the version before, and alerted to
 * the app's channels when a change alerts (a price change, a plan added or removed, a category move).
 * `listing.ignore` fields are stored and never alerted. The first read of an app is its baseline.
 */
import { appChannels, raiseMarketAlerts } from '../alerts/market.js';
import type { MarketAlert } from '../alerts/types.js';
import { CatalogNotFoundError, handleFromUrl } from '../catalog/index.js';
import { diffListings, listingHash, normalizeListing } from '../market/index.js';
import { insertListingChanges, insertMarketRun, latestSnapshots, recordListing } from '../store/market.js';
import {
  listingUrl,
  type MarketDeps,
  type MarketOutcome,
  type MarketReadOptions,
  recordFailedRead,
} from './market-read.js';

export interface ListingOutcome extends MarketOutcome {
  /** The developer's handle, from the detail's developer URL: what the developer read asks for. */
  developer?: string;
  /** Whether a new version was stored (the hash or the badge moved). */
  changed?: boolean;
}

/** The listing's rating, a string such as "4.8": a number in 0..5, else unknown. */
function ratingOf(text: string): number | null {
  const n = Number.parseFloat(text);
  return Number.isFinite(n) && n >= 0 && n <= 5 ? n : null;
}

export async function readListing(
  deps: MarketDeps,
  handle: string,
  options: MarketReadOptions,
): Promise<ListingOutcome> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  const { config } = deps;
  const run = { kind: 'listing' as const, subject: handle, startedAt, requests: 1 };
  let detail: Awaited<ReturnType<MarketDeps['client']['app']>>;
  try {
    detail = await deps.client.app(handle);
  } catch (err) {
    if (err instanceof CatalogNotFoundError) {
      // The polls of the app mark it unavailable and say so; the listing read only counts its request.
      await deps.store.writes.run(() =>
        insertMarketRun(deps.store.db, {
          ...run,
          finishedAt: now(),
          status: 'unavailable',
          error: err.message,
        }),
      );
      return { ...run, status: 'unavailable', alertKinds: [], messages: [], error: err.message };
    }
    return recordFailedRead(deps, run, err, options);
  }
  const at = now();
  const listing = normalizeListing(detail);
  const hash = listingHash(listing);
  const developer = handleFromUrl(detail.developer?.url ?? '') || undefined;
  const role = config.apps.find((a) => a.handle === handle)?.role ?? 'competitor';
  const { db } = deps.store;
  const result = await deps.store.writes.run(() => {
    // The badge is what the category pages say (the detail does not): the newest snapshot listing the app.
    const builtFor = badgeOf(deps, handle);
    const recorded = recordListing(db, {
      handle,
      listing,
      hash,
      builtFor,
      rating: ratingOf(detail.rating),
      at,
    });
    insertMarketRun(db, { ...run, finishedAt: at, status: 'ok' });
    if (!recorded.changed || recorded.previous === undefined)
      return { recorded, changes: 0, raised: undefined };
    const changes = diffListings(recorded.previous.listing, listing, { ignore: config.listing.ignore });
    insertListingChanges(
      db,
      handle,
      recorded.current,
      changes.map((c) => ({ ...c, alerted: c.alerts })),
      at,
    );
    const alerting = changes.filter((c) => c.alerts);
    if (alerting.length === 0) return { recorded, changes: changes.length, raised: undefined };
    const alert: MarketAlert = {
      kind: 'listing',
      app: {
        handle,
        name: config.apps.find((a) => a.handle === handle)?.name ?? listing.title,
        url: listingUrl(handle),
      },
      role,
      priority: 'medium',
      changes: alerting,
    };
    const raised = raiseMarketAlerts(
      db,
      config.channels,
      [
        {
          subject: handle,
          alert,
          dedupeKey: `listing:${handle}:${recorded.current}`,
          notify: appChannels(config, handle),
        },
      ],
      at,
    );
    return { recorded, changes: changes.length, raised };
  });
  const { recorded, raised } = result;
  if (recorded.previous === undefined) {
    deps.logger.info({ app: handle }, `${handle}: listing stored (its baseline: nothing alerts)`);
  } else if (result.changes > 0) {
    deps.logger.info(
      { app: handle, changes: result.changes, alerts: raised?.kinds.length ?? 0 },
      `${handle}: listing changed (${result.changes} field change(s))`,
    );
  } else {
    deps.logger.debug({ app: handle }, `${handle}: listing unchanged`);
  }
  return {
    ...run,
    status: 'ok',
    alertKinds: raised?.kinds ?? [],
    messages: raised?.messages ?? [],
    changed: recorded.changed,
    ...(developer ? { developer } : {}),
  };
}

function badgeOf(deps: MarketDeps, handle: string): boolean | null {
  const latest = latestSnapshots(
    deps.store.db,
    deps.config.categories.map((c) => c.handle),
  );
  let newest: { at: number; builtFor: boolean | null } | undefined;
  for (const snapshot of latest.values()) {
    const app = snapshot.apps.find((a) => a.handle === handle);
    if (app && app.builtFor !== null && (newest === undefined || snapshot.at > newest.at))
      newest = { at: snapshot.at, builtFor: app.builtFor };
  }
  return newest?.builtFor ?? null;
}

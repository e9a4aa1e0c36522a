/**
 * One read of a watched app's listing (endpoint 3): normalised and hashed (market/listing.ts), stored as a
 * new version only when the hash moved, diffed field by field against the version before, and alerted to
 * the app's channels when a change alerts (a price change, a plan added or removed, a category move).
 * `listing.ignore` fields are stored and never alerted. The first read of an app is its baseline.
 */
import { appChannels, raiseMarketAlerts } from '../alerts/market.js';
import type { MarketAlert } from '../alerts/types.js';
import { listingUrl } from '../catalog/handle.js';
import { handleFromUrl } from '../catalog/index.js';
import {
  diffListings,
  type ListingChange,
  listingHash,
  type NormalizedListing,
  normalizeListing,
} from '../market/index.js';
import { insertListingChanges, recordListing } from '../store/market/listings.js';
import { latestSnapshots } from '../store/market/snapshots.js';
import {
  finishRun,
  type MarketDeps,
  type MarketOutcome,
  type MarketReadOptions,
  type MarketRun,
  outcomeOf,
  recordReadError,
  startRead,
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
  const { run, now } = startRead(deps, 'listing', handle);
  let detail: Awaited<ReturnType<MarketDeps['client']['app']>>;
  try {
    detail = await deps.client.app(handle);
  } catch (err) {
    // A 404: the polls of the app mark it unavailable and say so; the listing read only counts its request.
    return recordReadError(deps, run, err, options);
  }
  const at = now();
  const listing = normalizeListing(detail);
  const developer = handleFromUrl(detail.developer?.url ?? '') || undefined;
  const result = await deps.store.writes.run(() =>
    storeListing(deps, run, listing, ratingOf(detail.rating), at),
  );
  const { recorded, raised } = result;
  logListingRead(deps, handle, recorded.previous === undefined, result.changes, raised?.kinds.length ?? 0);
  return {
    ...outcomeOf(run, 'ok', { raised }),
    changed: recorded.changed,
    ...(developer ? { developer } : {}),
  };
}

/**
 * Stores the listing as a new version when it moved, with its field changes, and raises those that alert.
 * Runs inside the write transaction.
 */
function storeListing(
  deps: MarketDeps,
  run: MarketRun,
  listing: NormalizedListing,
  rating: number | null,
  at: Date,
) {
  const { db } = deps.store;
  const handle = run.subject;
  // The badge is what the category pages say (the detail does not): the newest snapshot listing the app.
  const builtFor = badgeOf(deps, handle);
  const recorded = recordListing(db, { handle, listing, hash: listingHash(listing), builtFor, rating, at });
  finishRun(db, run, at, 'ok');
  if (!recorded.changed || recorded.previous === undefined)
    return { recorded, changes: 0, raised: undefined };
  const changes = diffListings(recorded.previous.listing, listing, { ignore: deps.config.listing.ignore });
  insertListingChanges(
    db,
    handle,
    recorded.current,
    changes.map((c) => ({ ...c, alerted: c.alerts })),
    at,
  );
  const alerting = changes.filter((c) => c.alerts);
  if (alerting.length === 0) return { recorded, changes: changes.length, raised: undefined };
  const raised = raiseListingAlert(deps, handle, listing.title, alerting, recorded.current, at);
  return { recorded, changes: changes.length, raised };
}

/** One listing alert for the changes that alert, named by the new version. */
function raiseListingAlert(
  deps: MarketDeps,
  handle: string,
  title: string,
  changes: ListingChange[],
  version: number,
  at: Date,
) {
  const { config } = deps;
  const configured = config.apps.find((a) => a.handle === handle);
  const alert: MarketAlert = {
    kind: 'listing',
    app: { handle, name: configured?.name ?? title, url: listingUrl(handle) },
    role: configured?.role ?? 'competitor',
    priority: 'medium',
    changes,
  };
  const raise = {
    subject: handle,
    alert,
    dedupeKey: `listing:${handle}:${version}`,
    notify: appChannels(config, handle),
  };
  return raiseMarketAlerts(deps.store.db, config.channels, [raise], at);
}

function logListingRead(
  deps: MarketDeps,
  handle: string,
  baseline: boolean,
  changes: number,
  alerts: number,
): void {
  if (baseline) {
    deps.logger.info({ app: handle }, `${handle}: listing stored (its baseline: nothing alerts)`);
  } else if (changes > 0) {
    deps.logger.info(
      { app: handle, changes, alerts },
      `${handle}: listing changed (${changes} field change(s))`,
    );
  } else {
    deps.logger.debug({ app: handle }, `${handle}: listing unchanged`);
  }
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

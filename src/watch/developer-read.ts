/**
 * One read of a competitor's developer (endpoint 4): the apps it publishes now, compared with the last
 * successful read (store/market/developers.ts, recordDeveloperApps). An app published or removed alerts
 * once, to the channels of the watched apps of that developer; the first read is the baseline. A 404
 * marks the developer unavailable (logged once, cleared when it answers) and is no evidence of removals.
 */
import { appChannels, raiseMarketAlerts } from '../alerts/market.js';
import type { MarketAlert } from '../alerts/types.js';
import { listingUrl } from '../catalog/handle.js';
import type { DeveloperDetail } from '../catalog/index.js';
import {
  developerRow,
  listedDeveloperApps,
  markDeveloperUnavailable,
  recordDeveloperApps,
  watchedAppsOf,
} from '../store/market/developers.js';
import {
  finishRun,
  type MarketDeps,
  type MarketOutcome,
  type MarketReadOptions,
  outcomeOf,
  recordReadError,
  startRead,
} from './market-read.js';

/** A developer app's identity: its handle, else (the reduced form without URLs) its name. */
function keyOf(app: DeveloperDetail['apps'][number]): string {
  return app.handle || `name:${app.name.trim().toLowerCase()}`;
}

export async function readDeveloper(
  deps: MarketDeps,
  developer: string,
  /** The watched app whose listing named this developer: the alert's subject when the list names none. */
  via: string,
  options: MarketReadOptions,
): Promise<MarketOutcome> {
  const { run, now } = startRead(deps, 'developer', developer);
  const { db } = deps.store;
  let detail: DeveloperDetail;
  try {
    detail = await deps.client.developer(developer);
  } catch (err) {
    return recordReadError(deps, run, err, options, {
      gone: (notFound) => ({
        write: () => markDeveloperUnavailable(db, developer, notFound.message, run.startedAt),
        wording: {
          fields: { developer },
          quietly: 'reads continue quietly',
          still: 'developer still unavailable',
        },
      }),
    });
  }
  const at = now();
  const { config } = deps;
  const handles = config.apps.map((a) => a.handle);
  const byKey = new Map(detail.apps.map((a) => [keyOf(a), a]));
  const result = await deps.store.writes.run(() => {
    const wasUnavailable = developerRow(db, developer)?.unavailableSince != null;
    const before = listedDeveloperApps(db, developer);
    const changes = recordDeveloperApps(
      db,
      { handle: developer, name: detail.name },
      [...byKey].map(([key, app]) => ({ handle: key, name: app.name })),
      at,
    );
    finishRun(db, run, at, 'ok');
    if (changes.added.length === 0 && changes.removed.length === 0)
      return { wasUnavailable, raised: undefined };
    const watched = watchedAppsOf(db, developer, handles);
    const apps = (watched.length > 0 ? watched : [via]).map((h) => ({
      handle: h,
      name: config.apps.find((a) => a.handle === h)?.name ?? h,
      url: listingUrl(h),
    }));
    const alert: MarketAlert = {
      kind: 'developer',
      developer: { handle: developer, name: detail.name },
      apps,
      priority: 'medium',
      published: changes.added.map((key) => {
        const app = byKey.get(key);
        return { name: app?.name ?? key, url: app?.url ?? '', category: app?.category ?? '' };
      }),
      removed: changes.removed.map((key) => ({
        name: before.get(key) ?? key,
        url: key.startsWith('name:') ? '' : listingUrl(key),
      })),
    };
    const notify = apps.flatMap((a) => appChannels(config, a.handle));
    const subject = apps[0]?.handle ?? via;
    const raised = raiseMarketAlerts(
      db,
      config.channels,
      [{ subject, alert, dedupeKey: `developer:${developer}:${at.getTime()}`, notify }],
      at,
    );
    return { wasUnavailable, raised };
  });
  if (result.wasUnavailable)
    deps.logger.info({ developer }, `developer ${developer} answers again: no longer marked unavailable`);
  return outcomeOf(run, 'ok', { raised: result.raised });
}

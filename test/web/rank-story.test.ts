/**
 * One rank story (docs/inbox.md): the rank alert, /market, /categories/HANDLE, the app's page, /api/market,
 * /api/categories/HANDLE and `reviewwatch market` give the same numbers for the same move. The alert is the detector's own,
 * raised from the stored history as a snapshot would raise it; the pages are read over HTTP and the
 * command run as a user runs it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raiseMarketAlerts } from '../../src/alerts/market.js';
import type { RankMoveAlert } from '../../src/alerts/types.js';
import { detectRankAlerts, type RankAlert } from '../../src/market/index.js';
import { connectRedis } from '../../src/queue/connection.js';
import { marketDoc } from '../../src/render/alert/market-wording.js';
import { openStore, type Store } from '../../src/store/db.js';
import { snapshotsSince } from '../../src/store/market/snapshots.js';
import { shortDay } from '../../src/web/market-views/index.js';
import { runCli } from '../helpers/cli.js';
import { REDIS_URL, tempDir } from '../helpers/index.js';
import { marketInboxConfig, seedMarketHistory } from '../helpers/market.js';
import { ADMIN_TOKEN, startWebServer, type WebServer } from '../helpers/web.js';

const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };
const NOW = Date.now();
const CLI_TEST_MS = 120_000;

let dir: ReturnType<typeof tempDir>;
let store: Store;
let redis: Redis;
let server: WebServer;
let move: RankAlert;
let headline: string;

/** The first rank alert the detector raises for shop, snapshot by snapshot through the stored history. */
function firstShopAlert(): RankAlert {
  const history = snapshotsSince(store.db, 'store-design', new Date(0));
  for (let i = 2; i <= history.length; i++) {
    const found = detectRankAlerts({ history: history.slice(0, i), ownApps: ['shop'] }).alerts.find(
      (a) => a.handle === 'shop',
    );
    if (found) return found;
  }
  throw new Error('the seeded history raised no rank alert for shop');
}

beforeAll(async () => {
  dir = tempDir();
  store = openStore(join(dir.dir, 'reviewwatch.db'));
  seedMarketHistory(store, NOW);
  move = firstShopAlert();
  const alert: RankMoveAlert = {
    kind: 'rank',
    app: { handle: 'shop', name: 'Shop', url: 'https://apps.example/shop' },
    category: { handle: 'store-design', name: 'store-design' },
    priority: 'high',
    move,
  };
  headline = marketDoc(alert, {}).title;
  raiseMarketAlerts(
    store.db,
    marketInboxConfig().channels,
    [{ subject: 'shop', alert, dedupeKey: 'rank:store-design:shop:test', notify: [] }],
    new Date(move.at),
  );
  redis = await connectRedis(REDIS_URL);
  server = await startWebServer({ store, redis, config: marketInboxConfig() });
}, 60_000);

afterAll(async () => {
  await server.server.close();
  store.close();
  dir.cleanup();
  await redis.quit();
});

async function text(path: string): Promise<string> {
  const res = await fetch(`${server.url}${path}`, { headers: AUTH });
  expect(res.status, path).toBe(200);
  return (await res.text()).replace(/<[^>]+>/g, '').replaceAll('&gt;', '>');
}

describe('one rank story', () => {
  it(
    'gives the alert’s move and the week’s move with the same numbers everywhere',
    async () => {
      expect(move.kind).toBe('fell');
      // The alert's move: its headline's numbers, as the pages quote them.
      expect(headline).toContain(`fell from #${move.from} to #${move.to}`);
      const alertMove = `Rank alert: fell #${move.from} → #${move.to} on ${shortDay(new Date(move.at))}`;

      // biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON as a client would
      const api: any = await (await fetch(`${server.url}/api/market`, { headers: AUTH })).json();
      const rank = api.apps[0].ranks[0];
      expect(rank.alert).toMatchObject({ kind: 'fell', from: move.from, to: move.to });
      expect(rank.alert.text).toBe(alertMove.replace('Rank alert: ', ''));
      // The week's move: the latest rank against a week before, not the alert's numbers.
      expect(rank.move).toBeLessThan(0);
      const weekMove = `This week: #${rank.rank}, ▼${-rank.move} against a week ago (#${rank.before.rank} then)`;
      expect(rank.week).toBe(weekMove.replace('This week: ', ''));

      // biome-ignore lint/suspicious/noExplicitAny: as above
      const category: any = await (
        await fetch(`${server.url}/api/categories/store-design`, { headers: AUTH })
      ).json();
      const shop = category.series.find((s: { handle: string }) => s.handle === 'shop');
      expect(shop.week).toBe(rank.week);
      expect(shop.alert).toEqual(rank.alert);

      const config = join(dir.dir, 'reviewwatch.yaml');
      writeFileSync(
        config,
        'apps:\n  - { handle: shop, name: Shop }\n  - { handle: rival, role: competitor }\ncategories:\n  - handle: store-design\n  - handle: finances\n',
      );
      const cli = await runCli(['market'], {
        REVIEWWATCH_CONFIG: config,
        DATABASE_PATH: join(dir.dir, 'reviewwatch.db'),
      });
      const pages = {
        '/market': await text('/market'),
        '/apps/shop': await text('/apps/shop'),
        '/categories/store-design': await text('/categories/store-design'),
      };
      for (const [where, page] of Object.entries(pages)) {
        expect(page, where).toContain(alertMove);
        expect(page, where).toContain(weekMove);
      }
      expect(pages['/market'], 'the feed quotes the alert itself').toContain(headline.replace('▼ ', ''));
      expect(cli.stdout).toContain(`${weekMove} · ${alertMove}`);
    },
    CLI_TEST_MS,
  );
});

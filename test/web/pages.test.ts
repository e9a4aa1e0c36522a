import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { applyTriage } from '../../src/store/triage.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { ADMIN_TOKEN, startWebServer, type WebServer } from '../helpers/web.js';

const HOSTILE = {
  script: '<script>alert("xss")</script> refund now',
  img: '<img src=x onerror="alert(1)"> broken',
  link: '<a href="javascript:alert(1)">click</a> [x](javascript:alert(2))',
  rtl: 'Great app \u202Egnp.exe\u202C and \u2067hidden\u2069 שלום עולם',
  zeroWidth: 'ref\u200Bund\u200D\uFEFF please',
};
const LONG = `${'very long complaint about billing '.repeat(1_600)}END-OF-TEXT`;

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let server: WebServer;
const ids: Record<string, number> = {};

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  const seed = new ReviewSeeder(store);
  seed.user('ana');
  const day = Date.now() - 86_400_000;
  for (const [key, content] of Object.entries(HOSTILE)) {
    ids[key] = seed.review({ content, reviewer: `<b>${key}</b>"'`, location: '<i>here</i>', createdAt: day });
  }
  ids.long = seed.review({ content: LONG, createdAt: day, appUrl: 'javascript:alert(3)' });
  ids.alerted = seed.review({ content: 'Charged twice, refund please', rating: 1, createdAt: day + 1000 });
  seed.alert(ids.alerted, 'high', [
    { channel: 'support', status: 'sent' },
    { channel: 'mail', status: 'failed' },
  ]);
  applyTriage(
    store.db,
    ids.script as number,
    { status: 'acknowledged', assignee: 'ana', addTags: ['xss'], note: '<script>alert("note")</script>' },
    'ana',
    new Date(),
  );
  store.db.$client
    .prepare(
      `insert into review_edits (review_row_id, app_handle, old_rating, new_rating, old_content, new_content,
       old_created_date, new_created_date, detected_at, poll_run_id)
       values (?, 'shop', 3, 1, '<svg onload=alert(4)>', 'Charged twice, refund please', 'a', 'b', ?, 1)`,
    )
    .run(ids.alerted, Date.now());
  server = await startWebServer({ store, redis });
});
afterAll(async () => {
  await server.server.close();
  store.cleanup();
  await redis.quit();
});

async function page(path: string): Promise<string> {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status, path).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  return res.text();
}

const OWN_SCRIPT = /<script src="\/assets\/inbox\.[0-9a-f]{12}\.js" defer><\/script>/;

/** Markup a hostile text could have smuggled in: any of these in a page means it was not escaped. */
function expectNoInjectedMarkup(page: string): void {
  // The one script a page has: the worker's own file, by URL.
  // ...and the charts an app's page draws.
  const text = page.replace(OWN_SCRIPT, '').replaceAll('<svg class="chart"', '<chart');
  expect(text).not.toMatch(/<script/i);
  expect(text).not.toMatch(/<img/i);
  expect(text).not.toMatch(/<svg/i);
  expect(text).not.toMatch(/<a href="javascript:/i);
  expect(text).not.toMatch(/href="javascript:/i);
  expect(text).not.toMatch(/<b>|<i>/);
  expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
}

describe('hostile review text', () => {
  it('is shown escaped in the inbox, every row', async () => {
    const text = await page('/');
    expectNoInjectedMarkup(text);
    expect(text).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt; refund now');
    expect(text).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; broken');
    expect(text).toContain('&lt;b&gt;script&lt;/b&gt;&quot;&#39;');
    expect(text).toContain('שלום עולם');
    // The 50 KB text is cut in the list; its page has it all.
    expect(text).not.toContain('END-OF-TEXT');
    expect(text.length).toBeLessThan(200_000);
  });

  it('is shown escaped on each review’s page, with notes, edits and the listing link checked', async () => {
    for (const key of Object.keys(HOSTILE)) {
      expectNoInjectedMarkup(await page(`/reviews/${ids[key]}`));
    }
    const scripted = await page(`/reviews/${ids.script}`);
    expect(scripted).toContain('&lt;script&gt;alert(&quot;note&quot;)&lt;/script&gt;');
    const long = await page(`/reviews/${ids.long}`);
    expect(long).toContain('END-OF-TEXT');
    expect(long).not.toContain('javascript:');
    const edited = await page(`/reviews/${ids.alerted}`);
    expectNoInjectedMarkup(edited);
    expect(edited).toContain('&lt;svg onload=alert(4)&gt;');
  });

  it('comes back as data in the JSON API, served as JSON', async () => {
    const res = await fetch(`${server.url}/api/reviews/${ids.img}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(((await res.json()) as { content: string }).content).toBe(HOSTILE.img);
  });
});

describe('the inbox', () => {
  it('shows severity reasons, keyword groups, priority, status, assignee and tags on each row', async () => {
    const text = await page('/');
    const alerted = text.slice(text.indexOf(`data-review-id="${ids.alerted}"`));
    const row = alerted.slice(0, alerted.indexOf('</tr>'));
    expect(row).toContain('<span class="badge p-high">high</span>');
    expect(row).toContain('<li>1 star</li>');
    expect(row).toMatch(/mentions billing: /);
    // A topic (stored with the review) is labelled one, apart from the tags, and links to the topic filter.
    expect(row).toMatch(
      /<a class="topic-chip" href="\/\?view=all&amp;topic=billing&amp;stars=1,2,3,4,5&amp;period=all" title="Topic, from the words: [^"]+"><span class="chip-kind">topic<\/span> billing<\/a>/,
    );
    expect(row).not.toMatch(/class="tag"[^>]*>billing</);
    const scripted = text.slice(text.indexOf(`data-review-id="${ids.script}"`));
    const scriptRow = scripted.slice(0, scripted.indexOf('</tr>'));
    expect(scriptRow).toContain('<span class="status">acknowledged</span>');
    expect(scriptRow).toContain('→ ana');
    expect(scriptRow).toContain('>xss</a>');
  });

  it('keeps its filters in the URL and in the form', async () => {
    const text = await page('/?status=acknowledged&q=refund&stars=1,2,3');
    expect(text).toContain(`data-review-id="${ids.script}"`);
    expect(text).not.toContain(`data-review-id="${ids.alerted}"`);
    expect(text).toContain('<input type="search" id="q" name="q" value="refund"');
    expect(text).toContain('<input type="checkbox" name="status" value="acknowledged" checked>');
    const none = await page('/?view=all&tag=nothing-like-this');
    expect(none).toContain('No reviews match.');
    // An empty queue says so: there is nothing left to do.
    expect(await page('/?tag=nothing-like-this')).toContain('Nothing to triage here');
  });

  it('links the next page with the same filters', async () => {
    const first = await page('/?limit=2');
    const next = /<a rel="next" href="([^"]+)">/.exec(first)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toMatch(/^\/\?limit=2&cursor=\d+_\d+$/);
    const second = await page(next ?? '/');
    const idsOf = (html: string) => [...html.matchAll(/data-review-id="(\d+)"/g)].map((m) => m[1]);
    expect(idsOf(second)).toHaveLength(2);
    expect(idsOf(second).some((id) => idsOf(first).includes(id))).toBe(false);
  });
});

describe('an app’s page', () => {
  it('draws its rating, distribution and weekly volume as SVG, with its open reviews and alerts', async () => {
    const t = Date.now();
    const insert = store.db.$client.prepare(
      `insert into rating_snapshots (app_handle, taken_at, average, count, stars_1, stars_2, stars_3, stars_4,
       stars_5, poll_run_id) values ('shop', ?, ?, 10, 1, 1, 1, 2, 5, 1)`,
    );
    insert.run(t - 30 * 86_400_000, 4.2);
    insert.run(t - 2 * 86_400_000, 3.94);
    store.db.$client
      .prepare(
        `insert into alerts (app_handle, kind, dedupe_key, priority, payload, created_at)
         values ('shop', 'rating-drop', 'drop-page-test', 'high', '{}', ?)`,
      )
      .run(t - 2 * 86_400_000);
    const text = await page('/apps/shop');
    expectNoInjectedMarkup(text);
    expect(text).toContain('<h1>Shop');
    expect(text).toMatch(
      /<a href="\/\?app=shop&amp;status=new%2Cacknowledged&amp;period=all"><strong>\d+<\/strong> open low-rated reviews?<\/a>/,
    );
    expect(text.match(/<svg class="chart"/g)).toHaveLength(3);
    expect(text).toContain('<polyline class="average"');
    expect(text).toMatch(/<line class="marker m-rating-drop"[^>]*><title>Rating drop \(high\)/);
    expect(text).toContain('rating drop,');
  });

  it('escapes the listing’s name, and is a 404 for an app nobody watches', async () => {
    store.db.$client.prepare("update apps set title = ? where handle = 'shop'").run('<script>x</script>');
    store.db.$client
      .prepare("insert or ignore into apps (handle, title) values ('rival', ?)")
      .run('<img src=x onerror=alert(1)>');
    const rival = await page('/apps/rival');
    expectNoInjectedMarkup(rival);
    expect(rival).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const missing = await fetch(`${server.url}/apps/nobody-watches-this`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(missing.status).toBe(404);
    const bad = await fetch(`${server.url}/apps/..%2F..`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(bad.status).toBe(404);
  });
});

describe('a review’s page', () => {
  it('shows its triage, audit trail, edit history, and alerts with their deliveries', async () => {
    const scripted = await page(`/reviews/${ids.script}`);
    expect(scripted).toContain('<span class="status" id="status">acknowledged</span>');
    expect(scripted).toMatch(
      /<strong>ana<\/strong> set the status from <strong>new<\/strong> to <strong>acknowledged<\/strong>/,
    );
    expect(scripted).toContain('assigned it to <strong>ana</strong>');
    expect(scripted).toContain('added the tag <span class="tag">xss</span>');
    expect(scripted).toContain(
      '<button type="submit" data-status="acknowledged" aria-pressed="true" accesskey="a">acknowledged</button>',
    );
    const alerted = await page(`/reviews/${ids.alerted}`);
    expect(alerted).toContain('review alert');
    expect(alerted).toMatch(/support: <strong>sent<\/strong>/);
    expect(alerted).toMatch(/mail: <strong>failed<\/strong>/);
    expect(alerted).toMatch(/★★★☆☆<\/span> → <span class="stars" role="img" aria-label="1 star">★☆☆☆☆/);
  });

  it('is where alerts link, by the app and the marketplace’s review id', async () => {
    const { identity } = store.db.$client
      .prepare('select identity from reviews where id = ?')
      .get(ids.alerted) as { identity: string };
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const found = await fetch(`${server.url}/apps/shop/reviews/${identity}`, {
      headers: auth,
      redirect: 'manual',
    });
    expect(found.status).toBe(303);
    expect(found.headers.get('location')).toBe(`/reviews/${ids.alerted}`);
    const other = await fetch(`${server.url}/apps/rival/reviews/${identity}`, {
      headers: auth,
      redirect: 'manual',
    });
    expect(other.status).toBe(404);
    const anonymous = await fetch(`${server.url}/apps/shop/reviews/${identity}`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toMatch(/^\/login\?next=/);
  });

  it('is a 404 for a review that does not exist', async () => {
    const res = await fetch(`${server.url}/reviews/424242`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(404);
  });
});

describe('a review the marketplace removed', () => {
  const REMOVED_AT = Date.UTC(2026, 10, 20, 9, 30);
  let removed: number;
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const rowsOf = (html: string) => [...html.matchAll(/<tr data-review-id="(\d+)"/g)].map((m) => Number(m[1]));

  beforeAll(() => {
    removed = new ReviewSeeder(store).review({
      content: 'Taken down by the marketplace, still unhappy',
      rating: 1,
      createdAt: Date.now() - 3_600_000,
    });
    store.db.$client.prepare('update reviews set removed_at = ? where id = ?').run(REMOVED_AT, removed);
  });

  it('is listed by default, marked with the day it was found gone; hidden or alone on request', async () => {
    const all = await page('/');
    expect(rowsOf(all)).toContain(removed);
    expect(rowsOf(all).length).toBeGreaterThan(1);
    const row = all.slice(all.indexOf(`<tr data-review-id="${removed}"`));
    expect(row.slice(0, row.indexOf('</tr>'))).toContain('Removed from the marketplace on 2026-11-20');
    // Only that row carries the mark.
    expect(all.match(/Removed from the marketplace on/g)).toHaveLength(1);

    const hidden = await page('/?removed=hide');
    expect(rowsOf(hidden)).toEqual(rowsOf(all).filter((id) => id !== removed));
    expect(hidden).toContain('<option value="hide" selected>');
    expect(rowsOf(await page('/?removed=only'))).toEqual([removed]);
    // The form's default says "show": the same list as no parameter.
    expect(rowsOf(await page('/?removed=show'))).toEqual(rowsOf(all));
  });

  it('says so on its page', async () => {
    const text = await page(`/reviews/${removed}`);
    expect(text).toContain('Removed from the marketplace on 2026-11-20 (found gone 2026-11-20 09:30 UTC)');
  });

  it('carries its removal date in the JSON API and the CSV export, which take the same filter', async () => {
    const res = await fetch(`${server.url}/api/reviews?removed=only`, { headers: auth });
    const body = (await res.json()) as { reviews: Array<{ id: number; removedAt: string | null }> };
    expect(body.reviews).toEqual([
      expect.objectContaining({ id: removed, removedAt: '2026-11-20T09:30:00.000Z' }),
    ]);
    const hidden = (await (
      await fetch(`${server.url}/api/reviews?removed=hide`, { headers: auth })
    ).json()) as {
      reviews: Array<{ id: number; removedAt: string | null }>;
    };
    expect(hidden.reviews.length).toBeGreaterThan(0);
    expect(hidden.reviews.every((r) => r.id !== removed && r.removedAt === null)).toBe(true);
    const bad = await fetch(`${server.url}/api/reviews?removed=maybe`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('removed is show, hide or only');

    const csv = await (await fetch(`${server.url}/export.csv?removed=only`, { headers: auth })).text();
    const [header, line, end] = csv.replace(/^\uFEFF/, '').split('\r\n');
    expect(header).toMatch(/,removed_at,content$/);
    expect(line).toMatch(/,2026-11-20T09:30:00\.000Z,"Taken down by the marketplace, still unhappy"$/);
    expect(end ?? '').toBe('');
  });
});

import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { applyTriage } from '../../src/store/triage.js';
import { CSV_COLUMNS, csvField, writeInboxCsv } from '../../src/web/csv.js';
import { presenterOf } from '../../src/web/present.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { ADMIN_TOKEN, inboxConfig, startWebServer, type WebServer } from '../helpers/web.js';

/** RFC 4180, as a spreadsheet reads it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

const TOTAL = 1_200;
const DAY = 86_400_000;

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let server: WebServer;
let tricky: number;

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  const seed = new ReviewSeeder(store);
  const now = Date.now();
  store.db.$client.transaction(() => {
    for (let i = 0; i < TOTAL; i++)
      seed.review({ rating: 1 + (i % 3), createdAt: now - DAY - Math.floor(i / 7) * 60_000 });
  })();
  tricky = seed.review({
    content: '=HYPERLINK("https://evil.example","click")\nsecond line, with "quotes"',
    reviewer: '@SUM(A1)',
    location: '-2+3',
    createdAt: now - 1000,
  });
  seed.user('ana');
  applyTriage(
    store.db,
    tricky,
    { status: 'acknowledged', assignee: 'ana', addTags: ['csv', 'export'] },
    'ana',
    new Date(),
  );
  server = await startWebServer({ store, redis });
});
afterAll(async () => {
  await server.server.close();
  store.cleanup();
  await redis.quit();
});

async function exportCsv(query = ''): Promise<{ res: Response; rows: string[][] }> {
  const res = await fetch(`${server.url}/export.csv${query}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  // The BOM that makes spreadsheets read UTF-8 (fetch's text() would hide it).
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return { res, rows: parseCsv(bytes.subarray(3).toString('utf8')) };
}

describe('CSV export', () => {
  it('streams every review of the view, newest first, each once, as an attachment', async () => {
    const { res, rows } = await exportCsv('?period=all');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="reviewwatch-inbox-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    const data = rows.slice(1);
    expect(data).toHaveLength(TOTAL + 1);
    const ids = data.map((r) => Number(r[0]));
    expect(new Set(ids).size).toBe(ids.length);
    const dates = data.map((r) => Date.parse(r[6] as string));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
  });

  it('keeps a spreadsheet from running a review as a formula, and quotes what needs it', async () => {
    const { rows } = await exportCsv('?q=hyperlink');
    expect(rows).toHaveLength(2);
    const row = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, rows[1]?.[i]]));
    expect(row).toMatchObject({
      id: String(tricky),
      url: `/reviews/${tricky}`,
      content: `'=HYPERLINK("https://evil.example","click")\nsecond line, with "quotes"`,
      reviewer: "'@SUM(A1)",
      location: "'-2+3",
      status: 'acknowledged',
      assignee: 'ana',
      tags: 'csv; export',
    });
    expect(csvField(-1)).toBe('-1');
    expect(csvField('a,b')).toBe('"a,b"');
    // The full-width signs Apple Numbers reads as their ASCII forms (csv-stringify's escape_formulas list).
    for (const sign of ['\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']) {
      expect(csvField(`${sign}1+1`)).toBe(`'${sign}1+1`);
    }
  });

  it('exports the filtered view only', async () => {
    const { rows } = await exportCsv('?period=all&stars=2');
    expect(rows.slice(1).every((r) => r[5] === '2')).toBe(true);
    expect(rows.length - 1).toBe(TOTAL / 3);
  });

  it('needs credentials', async () => {
    const res = await fetch(`${server.url}/export.csv`, { redirect: 'manual' });
    expect(res.status).toBe(303);
  });

  it('stops reading the store when the client goes away', async () => {
    let chunks = 0;
    const out = new Writable({
      highWaterMark: 1,
      write(_chunk, _encoding, done) {
        chunks++;
        // The second chunk is the first batch: the client hangs up while it arrives.
        if (chunks === 2) out.destroy();
        done();
      },
    });
    out.on('error', () => {});
    const written = await writeInboxCsv(
      out,
      store.db,
      { stars: [1, 2, 3] },
      {
        presenter: presenterOf(inboxConfig()),
        publicUrl: undefined,
        batchSize: 100,
      },
    );
    expect(written).toBe(100);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Rng } from '../../src/simulator/random.js';
import {
  COUNT_CAP,
  countInbox,
  explainInbox,
  ftsQuery,
  type InboxFilter,
  type InboxSort,
  keyHour,
  listInbox,
  neighboursInList,
} from '../../src/store/inbox.js';
import { reviewDetail } from '../../src/store/review-detail.js';
import { applyTriage } from '../../src/store/triage.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { tempStore } from '../helpers/index.js';

let store: ReturnType<typeof tempStore>;
let seed: ReviewSeeder;
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 23, 12);
const AT = new Date(NOW);

beforeEach(() => {
  store = tempStore();
  seed = new ReviewSeeder(store);
  seed.user('ana');
});
afterEach(() => store.cleanup());

/** Every page of a list, following the cursors: each page's review ids, and the cursor after it. */
function pagesOf(
  filter: InboxFilter,
  options: Omit<NonNullable<Parameters<typeof listInbox>[2]>, 'cursor'>,
): { ids: number[][]; cursors: Array<string | undefined> } {
  const ids: number[][] = [];
  const cursors: Array<string | undefined> = [];
  let cursor: string | undefined;
  do {
    const page = listInbox(store.db, filter, { ...options, ...(cursor ? { cursor } : {}) });
    ids.push(page.rows.map((r) => r.id));
    cursors.push(page.next);
    cursor = page.next;
  } while (cursor && ids.length < 200);
  return { ids, cursors };
}

const walk = (filter: InboxFilter, limit: number) => pagesOf(filter, { limit }).ids;

const ids = (filter: InboxFilter) => listInbox(store.db, filter, { limit: 500 }).rows.map((r) => r.id);

describe('the inbox list', () => {
  it('lists newest first by the review date, or first seen when the date did not parse, ties by row', () => {
    const a = seed.review({ createdAt: NOW - 3 * DAY });
    const b = seed.review({ createdAt: NOW - DAY });
    const c = seed.review({ createdAt: null, firstSeenAt: NOW - 2 * DAY });
    const d = seed.review({ createdAt: NOW - DAY });
    expect(ids({})).toEqual([d, b, c, a]);
  });

  it('pages through everything once, in order, whatever the page size, across equal dates', () => {
    const all: number[] = [];
    for (let i = 0; i < 23; i++) all.push(seed.review({ createdAt: NOW - Math.floor(i / 4) * DAY }));
    const expected = [...all].sort((x, y) => {
      const dx = Math.floor((all.indexOf(x) as number) / 4);
      const dy = Math.floor((all.indexOf(y) as number) / 4);
      return dx - dy || y - x;
    });
    for (const size of [1, 4, 5, 7, 23, 50]) {
      const pages = walk({}, size);
      expect(pages.flat()).toEqual(expected);
      expect(pages.every((p, i) => p.length === size || i === pages.length - 1)).toBe(true);
    }
    const page = listInbox(store.db, {}, { limit: 23 });
    expect(page.next).toBeUndefined();
  });

  it('answers a mangled cursor with the first page', () => {
    const a = seed.review();
    expect(listInbox(store.db, {}, { cursor: "1' or 1=1 --" }).rows.map((r) => r.id)).toEqual([a]);
  });

  it('filters by app, stars, date range and removal-proof rows', () => {
    const shopLow = seed.review({ app: 'shop', rating: 1, createdAt: NOW - DAY });
    const shopHigh = seed.review({ app: 'shop', rating: 5, createdAt: NOW - DAY });
    const rivalLow = seed.review({ app: 'rival', rating: 2, createdAt: NOW - 2 * DAY });
    const otherLow = seed.review({ app: 'other', rating: 3, createdAt: NOW - 40 * DAY });
    expect(ids({ apps: ['shop'] })).toEqual([shopHigh, shopLow]);
    expect(ids({ apps: ['shop', 'rival'], stars: [1, 2, 3] })).toEqual([shopLow, rivalLow]);
    expect(ids({ apps: [] })).toEqual([]);
    expect(ids({ stars: [1, 2, 3], from: new Date(NOW - 30 * DAY) })).toEqual([shopLow, rivalLow]);
    expect(ids({ to: new Date(NOW - DAY) })).toEqual([rivalLow, otherLow]);
  });

  it('lists reviews the marketplace removed with their date, unless asked to hide them or to list only them', () => {
    const listed = seed.review({ createdAt: NOW - DAY });
    const removed = seed.review({ createdAt: NOW - 2 * DAY });
    const removedAt = NOW - DAY / 2;
    store.db.$client.prepare('update reviews set removed_at = ? where id = ?').run(removedAt, removed);
    const rows = listInbox(store.db, {}).rows;
    expect(rows.map((r) => [r.id, r.removedAt?.getTime() ?? null])).toEqual([
      [listed, null],
      [removed, removedAt],
    ]);
    expect(ids({ removed: 'hide' })).toEqual([listed]);
    expect(ids({ removed: 'only' })).toEqual([removed]);
    expect(ids({ removed: 'only', stars: [1, 2, 3], from: new Date(NOW - 30 * DAY) })).toEqual([removed]);
  });

  it('filters by priority: the highest of the review alerts', () => {
    const critical = seed.review();
    const high = seed.review();
    const none = seed.review();
    seed.alert(critical, 'low');
    seed.alert(critical, 'critical');
    seed.alert(high, 'high');
    expect(ids({ priorities: ['critical'] })).toEqual([critical]);
    expect(ids({ priorities: ['low'] })).toEqual([]);
    expect(ids({ priorities: ['high', 'critical'] })).toEqual([high, critical]);
    const rows = listInbox(store.db, {}).rows;
    expect(Object.fromEntries(rows.map((r) => [r.id, r.priority]))).toEqual({
      [critical]: 'critical',
      [high]: 'high',
      [none]: null,
    });
  });

  it('filters by status, assignee and tag, and shows them on each row', () => {
    const fresh = seed.review();
    const acked = seed.review();
    const resolved = seed.review();
    const reopenedToNew = seed.review();
    applyTriage(
      store.db,
      acked,
      { status: 'acknowledged', assignee: 'ana', addTags: ['billing'] },
      'ana',
      AT,
    );
    applyTriage(store.db, resolved, { status: 'resolved', addTags: ['billing', 'bug'] }, 'ana', AT);
    applyTriage(store.db, reopenedToNew, { status: 'resolved' }, 'ana', AT);
    applyTriage(store.db, reopenedToNew, { status: 'new' }, 'ana', AT);
    expect(ids({ statuses: ['new'] })).toEqual([reopenedToNew, fresh]);
    expect(ids({ statuses: ['new', 'acknowledged'] })).toEqual([reopenedToNew, acked, fresh]);
    expect(ids({ statuses: ['resolved', 'acknowledged'] })).toEqual([resolved, acked]);
    expect(ids({ assignee: 'ana' })).toEqual([acked]);
    expect(ids({ tag: 'billing' })).toEqual([resolved, acked]);
    expect(ids({ tag: 'billing', statuses: ['resolved'] })).toEqual([resolved]);
    const row = listInbox(store.db, { tag: 'bug' }).rows[0];
    expect(row).toMatchObject({ id: resolved, status: 'resolved', assignee: null, tags: ['billing', 'bug'] });
  });

  it('finds words in the text and the reviewer, in any inflection, all words required, accents ignored', () => {
    const crash = seed.review({ content: 'The app crashes at checkout. Refund please!' });
    const refund = seed.review({ content: 'Still waiting for my refund', reviewer: 'Zoë' });
    seed.review({ content: 'Fine' });
    expect(ids({ text: 'refund' })).toEqual([refund, crash]);
    expect(ids({ text: 'crash refund' })).toEqual([crash]);
    expect(ids({ text: 'refunds' })).toEqual([refund, crash]);
    expect(ids({ text: 'crashing' })).toEqual([crash]);
    expect(ids({ text: 'ZOE' })).toEqual([refund]);
    expect(ids({ text: 'checkout"' })).toEqual([crash]);
    expect(ids({ text: 'NEAR( OR * -' })).toEqual([]);
    expect(ids({ text: 'refund', apps: ['elsewhere'] })).toEqual([]);
  });

  it('turns what a person types into a harmless FTS5 query', () => {
    expect(ftsQuery('refund  "please')).toBe('"refund" "please"');
    expect(ftsQuery('OR AND')).toBe('"OR" "AND"');
    expect(ftsQuery('* - ()')).toBeUndefined();
  });
});

/** The Open view as web/filters.ts asks for it: own apps' new and acknowledged low reviews. */
const OPEN: InboxFilter = { excludeApps: ['rival'], statuses: ['new', 'acknowledged'], stars: [1, 2, 3] };

describe('the views of a queue that empties', () => {
  it('lists own apps’ new and acknowledged reviews in the Open view, and a resolved one leaves it', () => {
    const fresh = seed.review({ createdAt: NOW - DAY });
    const acked = seed.review({ createdAt: NOW - 2 * DAY });
    const resolved = seed.review({ createdAt: NOW - 3 * DAY });
    const ignored = seed.review({ createdAt: NOW - 4 * DAY });
    const rival = seed.review({ app: 'rival', createdAt: NOW });
    const high = seed.review({ rating: 5, createdAt: NOW });
    applyTriage(store.db, acked, { status: 'acknowledged' }, 'ana', AT);
    applyTriage(store.db, resolved, { status: 'resolved' }, 'ana', AT);
    applyTriage(store.db, ignored, { status: 'ignored' }, 'ana', AT);
    expect(ids(OPEN)).toEqual([fresh, acked]);
    applyTriage(store.db, fresh, { status: 'resolved' }, 'ana', AT);
    expect(ids(OPEN)).toEqual([acked]);
    expect(ids({ apps: ['rival'] })).toEqual([rival]);
    expect(ids({})).toContain(high);
  });

  it('counts every view in one walk, under the other filters, and says when it stopped counting', () => {
    const mine = seed.review({ createdAt: NOW - DAY });
    seed.review({ createdAt: NOW - DAY });
    const resolved = seed.review({ createdAt: NOW - DAY });
    seed.review({ app: 'rival', createdAt: NOW - DAY });
    seed.review({ createdAt: NOW - 40 * DAY });
    seed.review({ rating: 5, createdAt: NOW - DAY });
    applyTriage(store.db, mine, { status: 'acknowledged', assignee: 'ana' }, 'ana', AT);
    applyTriage(store.db, resolved, { status: 'resolved' }, 'ana', AT);
    const buckets = {
      open: { excludeApps: ['rival'], statuses: ['new', 'acknowledged'] as const },
      new: { excludeApps: ['rival'], statuses: ['new'] as const },
      mine: { excludeApps: ['rival'], statuses: ['new', 'acknowledged'] as const, assignee: 'ana' },
      resolved: { excludeApps: ['rival'], statuses: ['resolved'] as const },
      competitors: { apps: ['rival'] },
      nobody: { none: true },
      all: {},
    };
    const month = { stars: [1, 2, 3], from: new Date(NOW - 30 * DAY) };
    expect(countInbox(store.db, month, buckets)).toEqual({
      counts: { open: 2, new: 1, mine: 1, resolved: 1, competitors: 1, nobody: 0, all: 4 },
      capped: false,
    });
    // The same numbers as the lists they count.
    expect(ids({ ...month, ...OPEN }).length).toBe(2);
    expect(countInbox(store.db, { stars: [1, 2, 3] }, buckets).counts.all).toBe(5);
    expect(countInbox(store.db, { ...month, text: 'number' }, buckets).counts.all).toBe(4);
    expect(countInbox(store.db, { ...month, apps: [] }, buckets).counts.all).toBe(0);
    const capped = countInbox(store.db, month, buckets, { cap: 2 });
    expect(capped.capped).toBe(true);
    expect(capped.counts.all).toBeLessThanOrEqual(3);
    expect(COUNT_CAP).toBeGreaterThanOrEqual(1_000);
  });

  it('sorts by first seen, severity or app, paging through everything once with each order’s cursor', () => {
    const rows: Array<{ id: number; seen: number; app: string; at: number; rank: number }> = [];
    const priorities = ['critical', 'high', 'medium', 'low', undefined] as const;
    for (let i = 0; i < 17; i++) {
      const app = ['shop', 'alpha', 'zed'][i % 3] as string;
      const at = NOW - (i % 5) * DAY;
      // A baseline stores old reviews late: first seen is not the review's date.
      const seen = NOW - ((i * 7) % 11) * 3_600_000;
      const id = seed.review({ app, createdAt: at, firstSeenAt: seen });
      const priority = priorities[i % 5];
      if (priority) seed.alert(id, priority);
      rows.push({ id, seen, app, at, rank: priority ? priorities.indexOf(priority) : 9 });
    }
    const expected: Record<InboxSort, number[]> = {
      newest: [...rows].sort((a, b) => b.at - a.at || b.id - a.id).map((r) => r.id),
      seen: [...rows].sort((a, b) => b.seen - a.seen || b.id - a.id).map((r) => r.id),
      severity: [...rows].sort((a, b) => a.rank - b.rank || b.at - a.at || b.id - a.id).map((r) => r.id),
      app: [...rows]
        .sort((a, b) => a.app.localeCompare(b.app) || b.at - a.at || b.id - a.id)
        .map((r) => r.id),
    };
    for (const sort of ['newest', 'seen', 'severity', 'app'] as const) {
      for (const limit of [1, 4, 17]) {
        const pages: number[] = [];
        let cursor: string | undefined;
        do {
          const page = listInbox(store.db, {}, { sort, limit, ...(cursor ? { cursor } : {}) });
          pages.push(...page.rows.map((r) => r.id));
          cursor = page.next;
        } while (cursor);
        expect(pages, `${sort} by ${limit}`).toEqual(expected[sort]);
      }
      // Every review's neighbours are the ones around it in that order.
      const order = expected[sort];
      order.forEach((id, i) => {
        const around = neighboursInList(store.db, {}, id, { sort });
        expect([around.previous?.id, around.next?.id], `${sort} around ${id}`).toEqual([
          order[i - 1],
          order[i + 1],
        ]);
      });
    }
  });

  it('filters the period by first seen when sorted by it, and gives both dates on each row', () => {
    const oldButNew = seed.review({ createdAt: NOW - 300 * DAY, firstSeenAt: NOW - DAY });
    const recent = seed.review({ createdAt: NOW - 2 * DAY, firstSeenAt: NOW - 2 * DAY });
    const from = new Date(NOW - 7 * DAY);
    expect(ids({ from })).toEqual([recent]);
    expect(listInbox(store.db, { from }, { sort: 'seen' }).rows.map((r) => r.id)).toEqual([
      oldButNew,
      recent,
    ]);
    expect(countInbox(store.db, { from }, { all: {} }, { sort: 'seen' }).counts.all).toBe(2);
    const row = listInbox(store.db, { from }, { sort: 'seen' }).rows[0];
    expect(row?.createdAt?.getTime()).toBe(NOW - 300 * DAY);
    expect(row?.firstSeenAt.getTime()).toBe(NOW - DAY);
  });

  it('gives the next review of a list after one that left it, and none past either end', () => {
    const a = seed.review({ createdAt: NOW - DAY });
    const b = seed.review({ createdAt: NOW - 2 * DAY });
    const c = seed.review({ createdAt: NOW - 3 * DAY });
    applyTriage(store.db, b, { status: 'resolved' }, 'ana', AT);
    expect(neighboursInList(store.db, OPEN, b)).toMatchObject({ previous: { id: a }, next: { id: c } });
    expect(neighboursInList(store.db, OPEN, a).previous).toBeUndefined();
    expect(neighboursInList(store.db, OPEN, c).next).toBeUndefined();
    expect(neighboursInList(store.db, { ...OPEN, text: 'number' }, a).next?.id).toBe(c);
    expect(neighboursInList(store.db, OPEN, 99_999)).toEqual({});
  });
});

describe('query plans that stay fast at a million reviews', () => {
  const cursor = `${NOW}_1000`;
  const plan = (filter: InboxFilter, withCursor = true) =>
    explainInbox(store.db, filter, withCursor ? { cursor } : {}).join(' | ');
  const from = new Date(NOW - 30 * DAY);

  it('walks the date index in list order for the default list and its cursor pages', () => {
    for (const filter of [
      { stars: [1, 2, 3], from },
      { stars: [1, 2, 3], from, statuses: ['new' as const] },
      { stars: [1], from, priorities: ['high' as const] },
      { apps: ['a', 'b', 'c'], from },
      { stars: [1, 2, 3], from, removed: 'hide' as const },
      { stars: [1, 2, 3], from, removed: 'only' as const },
    ]) {
      const p = plan(filter);
      expect(p).toMatch(
        /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_inbox \(<expr>>\? AND <expr><\?\)/,
      );
      expect(p).not.toMatch(/TEMP B-TREE/);
      expect(p).not.toMatch(/SCAN r\b/);
    }
    expect(plan({}, false)).toMatch(/SCAN r USING (COVERING )?INDEX reviews_inbox/);
    expect(plan({}, false)).not.toMatch(/TEMP B-TREE/);
  });

  it('walks the date index alone for the Open view and its counts, looking up only triage rows', () => {
    const p = plan({ ...OPEN, from });
    expect(p).toMatch(
      /^CO-ROUTINE p \| SEARCH r USING COVERING INDEX reviews_inbox \(<expr>>\? AND <expr><\?\)/,
    );
    expect(p).not.toMatch(/TEMP B-TREE|SCAN r\b/);
    const sql = explainInbox(store.db, { ...OPEN, from }, { sort: 'seen' }).join(' | ');
    expect(sql).toMatch(/SEARCH r USING COVERING INDEX reviews_seen/);
  });

  it('walks one app’s own index for an app filter', () => {
    const p = plan({ apps: ['shop'], stars: [1, 2], from });
    expect(p).toMatch(
      /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_app_inbox \(app_handle=\? AND <expr>>\? AND <expr><\?\)/,
    );
    expect(p).not.toMatch(/TEMP B-TREE/);
  });

  it('starts from the triaged rows for filters only triaged reviews match', () => {
    expect(plan({ statuses: ['resolved'] })).toMatch(
      /^CO-ROUTINE p \| SEARCH t USING (COVERING )?INDEX review_triage_status/,
    );
    expect(plan({ assignee: 'ana' })).toMatch(
      /^CO-ROUTINE p \| SEARCH t USING (COVERING )?INDEX review_triage_assignee/,
    );
    expect(plan({ tag: 'billing' })).toMatch(
      /^CO-ROUTINE p \| SEARCH g USING (COVERING )?INDEX review_tags_tag/,
    );
  });

  it('looks up priorities and tags by index, never by scanning', () => {
    const p = plan({ priorities: ['critical'] });
    expect(p).toMatch(/SEARCH a USING INDEX alerts_review/);
    expect(p).toMatch(/SEARCH review_tags USING (COVERING )?INDEX sqlite_autoindex_review_tags_1/);
    expect(p).not.toMatch(/SCAN (a|review_tags|alerts)\b/);
  });

  it('takes a few apps of many through their own index, sorting only what they match', () => {
    const insert = store.db.$client.prepare('insert into apps (handle) values (?)');
    for (let i = 0; i < 100; i++) insert.run(`app-${i}`);
    const p = plan({ apps: ['app-1', 'app-2'], from });
    expect(p).toMatch(
      /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_app_inbox \(app_handle=\? AND/,
    );
    // Ten of a hundred is a large share: the date index, as above.
    const many = plan({ apps: Array.from({ length: 10 }, (_, i) => `app-${i}`), from });
    expect(many).toMatch(/^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_inbox/);
  });

  it('walks the dates for a status or assignee that many triaged reviews have, with the same answer', () => {
    const ids = [1, 2, 3, 4].map((d) => seed.review({ createdAt: NOW - d * DAY }));
    for (const id of ids.slice(0, 3))
      applyTriage(store.db, id, { status: 'resolved', assignee: 'ana' }, 'ana', AT);
    for (const filter of [{ statuses: ['resolved' as const] }, { assignee: 'ana' }]) {
      const few = listInbox(store.db, filter, { limit: 2 });
      const many = listInbox(store.db, filter, { limit: 2, triagedRowsToSort: 2 });
      expect(many.rows.map((r) => r.id)).toEqual(few.rows.map((r) => r.id));
      expect(few.rows.map((r) => r.id)).toEqual(ids.slice(0, 2));
      const walk = explainInbox(store.db, { ...filter, from }, { triagedRowsToSort: 2 }).join(' | ');
      expect(walk).toMatch(
        /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_inbox .*SEARCH t USING INTEGER PRIMARY KEY/,
      );
      expect(walk).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('walks a search’s matches in key order, newest hour first, sorting only the page’s last hour', () => {
    seed.review({ content: 'refund', createdAt: NOW - DAY });
    for (const filter of [{ text: 'refund' }, { text: 'refund', stars: [1, 2], from }]) {
      const p = plan(filter);
      // The first page's worth of matches by key (no sort), then the matches from the start of its last
      // hour, sorted: both walks bounded by keys ('<' the cursor's hour, '>' the dates or that hour).
      expect(p).toMatch(
        /^CO-ROUTINE p \| SCAN f VIRTUAL TABLE INDEX 0:M\d+<> \| SCALAR SUBQUERY \d+ \| CO-ROUTINE \(subquery-\d+\) \| SCAN f VIRTUAL TABLE INDEX 192:M\d+<> \| SEARCH r USING INTEGER PRIMARY KEY \(rowid=\?\) \|/,
      );
      expect(p.match(/TEMP B-TREE/g)).toHaveLength(1);
      expect(p).not.toMatch(/SCAN r\b|reviews_inbox/);
    }
    // An app's own index, a tag's or a few triaged reviews: those are walked, as without a search.
    expect(plan({ text: 'refund', apps: ['shop'], from })).toMatch(
      /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_app_inbox/,
    );
    expect(plan({ text: 'refund', tag: 'billing' })).toMatch(/^CO-ROUTINE p \| SEARCH g USING/);
    expect(plan({ text: 'refund', statuses: ['resolved'] })).toMatch(/^CO-ROUTINE p \| SEARCH t USING/);
  });

  it('takes the other paths where asked, walking the dates or starting from the matches', () => {
    const gathered = plan({ text: 'refund', from }, false);
    expect(explainInbox(store.db, { text: 'refund', from }, { searchPath: 'gathered' }).join(' | ')).toMatch(
      /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_inbox .*LIST SUBQUERY/,
    );
    expect(gathered).not.toMatch(/reviews_inbox/);
    const ask = explainInbox(store.db, { text: 'refund', from }, { searchPath: 'probed' }).join(' | ');
    expect(ask).toMatch(
      /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_inbox .*SCAN f EXISTS VIRTUAL TABLE INDEX 0:(=M\d+|M\d+=)/,
    );
    expect(ask).not.toMatch(/TEMP B-TREE FOR ORDER BY \| SCAN p/);
    const sort = explainInbox(store.db, { text: 'refund', from }, { searchPath: 'from-matches' }).join(' | ');
    expect(sort).toMatch(
      /SEARCH r USING INTEGER PRIMARY KEY .*reviews_fts VIRTUAL TABLE INDEX .*TEMP B-TREE/,
    );
  });

  it('counts the matches of a search on one app to choose between its paths', () => {
    const matching = [1, 2, 3, 4, 5].map((d) =>
      seed.review({ content: `refund ${d}`, createdAt: NOW - d * DAY }),
    );
    seed.review({ content: 'nothing', createdAt: NOW });
    const filter = { text: 'refund', apps: ['shop'] };
    const few = listInbox(store.db, filter, { limit: 2 });
    expect(few.rows.map((r) => r.id)).toEqual(matching.slice(0, 2));
    // Few matches: looked up (SQLite may still walk the app's index against them, as it does here).
    expect(explainInbox(store.db, filter).join(' | ')).toMatch(/LIST SUBQUERY|TEMP B-TREE/);
    const many = explainInbox(store.db, filter, { searchMatchesToSort: 3 }).join(' | ');
    expect(many).toMatch(
      /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_app_inbox .*LIST SUBQUERY/,
    );
    const most = explainInbox(store.db, filter, { searchMatchesToSort: 3, searchMatchesToProbe: 4 });
    expect(most.join(' | ')).toMatch(/SCAN f EXISTS VIRTUAL TABLE/);
    for (const options of [{ searchMatchesToSort: 3 }, { searchMatchesToSort: 3, searchMatchesToProbe: 4 }]) {
      const page = listInbox(store.db, filter, { limit: 2, ...options });
      expect(page.rows.map((r) => r.id)).toEqual(few.rows.map((r) => r.id));
      expect(page.next).toBe(few.next);
    }
  });

  it('searches the full-text index, not the text', () => {
    const p = plan({ text: 'refund', from });
    expect(p).toMatch(/SCAN f VIRTUAL TABLE INDEX/);
    expect(p).not.toMatch(/SCAN r\b/);
  });
});

describe('every way a search runs gives the same pages', () => {
  const HOUR = 3_600_000;
  const WORDS = ['refund', 'crash', 'slow', 'great', 'app', 'billing', 'sync'];
  const PATHS = ['keyed', 'from-matches', 'gathered', 'probed'] as const;

  /** A deterministic random number generator, so two runs build the same data. */
  function random(seed: number): () => number {
    const rng = new Rng(seed);
    return () => rng.next();
  }

  interface Seeded {
    id: number;
    at: number;
    app: string;
    rating: number;
    words: Set<string>;
    status: string;
    tags: string[];
    removed: boolean;
  }

  /**
   * Reviews crowded into a few hours, so that an hour holds many matches stored out of date order (a later
   * row with an earlier date in the same hour, equal dates, a date that did not parse), plus dates beyond
   * the keys' clamp at both ends (before 1491, after 2448, before 1970).
   */
  function seedStore(): Seeded[] {
    const rnd = random(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T;
    const base = Date.UTC(2026, 10, 20, 10);
    const dates = [
      ...Array.from({ length: 5 }, (_, h) => base - h * HOUR),
      Date.UTC(1200, 0, 1),
      Date.UTC(1400, 5, 1),
      Date.UTC(2600, 0, 1),
      Date.UTC(3000, 0, 1),
      -HOUR / 2,
      HOUR / 2,
    ];
    const rows: Seeded[] = [];
    for (let i = 0; i < 160; i++) {
      // Within an hour: a few exact ties, the rest spread over its minutes in any order.
      const hour = rnd() < 0.8 ? (dates[Math.floor(rnd() * 5)] as number) : pick(dates);
      const at = hour + (rnd() < 0.2 ? 0 : Math.floor(rnd() * 60) * 60_000);
      const unparsed = rnd() < 0.1;
      const words = new Set(WORDS.filter((_, w) => rnd() < 0.9 / (w + 1)));
      const rating = 1 + Math.floor(rnd() * 5);
      const app = pick(['shop', 'rival', 'other']);
      const id = seed.review({
        app,
        rating,
        content: [...words].join(' ') || 'nothing',
        createdAt: unparsed ? null : at,
        firstSeenAt: at,
      });
      if (rating === 1) seed.alert(id, 'high');
      const status = pick(['new', 'new', 'resolved', 'acknowledged']);
      const tags = rnd() < 0.3 ? ['billing'] : [];
      if (status !== 'new' || tags.length > 0)
        applyTriage(
          store.db,
          id,
          { ...(status !== 'new' ? { status: status as 'resolved' } : {}), addTags: tags },
          'ana',
          AT,
        );
      const removed = rnd() < 0.2;
      if (removed) store.db.$client.prepare('update reviews set removed_at = ? where id = ?').run(NOW, id);
      rows.push({ id, at, app, rating, words, status, tags, removed });
    }
    return rows;
  }

  it('for each path, filter and page size: the rows newest first and the same cursors', () => {
    const rows = seedStore();
    const newestFirst = [...rows].sort((x, y) => y.at - x.at || y.id - x.id);
    // The data is what the test needs: an hour whose rows by date are not in row-id order.
    const outOfOrder = newestFirst.some((r, i) => {
      const next = newestFirst[i + 1];
      return next !== undefined && keyHour(next.at) === keyHour(r.at) && next.id > r.id;
    });
    expect(outOfOrder).toBe(true);

    const filters: Array<[InboxFilter, (r: Seeded) => boolean]> = [
      [{ text: 'refund' }, (r) => r.words.has('refund')],
      [{ text: 'app' }, (r) => r.words.has('app')],
      [{ text: 'refunds crash' }, (r) => r.words.has('refund') && r.words.has('crash')],
      [{ text: 'sync', stars: [1, 2] }, (r) => r.words.has('sync') && r.rating <= 2],
      [
        { text: 'refund', from: new Date(NOW - 3 * DAY), to: new Date(Date.UTC(2026, 10, 20, 8, 30)) },
        (r) => r.words.has('refund') && r.at >= NOW - 3 * DAY && r.at < Date.UTC(2026, 10, 20, 8, 30),
      ],
      [{ text: 'refund', to: new Date(0) }, (r) => r.words.has('refund') && r.at < 0],
      [{ text: 'slow', apps: ['shop', 'rival'] }, (r) => r.words.has('slow') && r.app !== 'other'],
      [{ text: 'refund', apps: ['rival'] }, (r) => r.words.has('refund') && r.app === 'rival'],
      [{ text: 'refund', statuses: ['resolved'] }, (r) => r.words.has('refund') && r.status === 'resolved'],
      [{ text: 'crash', statuses: ['new'] }, (r) => r.words.has('crash') && r.status === 'new'],
      [{ text: 'refund', tag: 'billing' }, (r) => r.words.has('refund') && r.tags.includes('billing')],
      [{ text: 'refund', priorities: ['high'] }, (r) => r.words.has('refund') && r.rating === 1],
      [{ text: 'nowhere' }, () => false],
      [{ text: 'refund', removed: 'hide' }, (r) => r.words.has('refund') && !r.removed],
      [{ text: 'app', removed: 'only' }, (r) => r.words.has('app') && r.removed],
      [
        { text: 'refund', apps: ['rival'], removed: 'only' },
        (r) => r.words.has('refund') && r.app === 'rival' && r.removed,
      ],
      [
        { text: 'crash', tag: 'billing', removed: 'hide' },
        (r) => r.words.has('crash') && r.tags.includes('billing') && !r.removed,
      ],
      [
        { text: 'refund', statuses: ['resolved'], removed: 'only' },
        (r) => r.words.has('refund') && r.status === 'resolved' && r.removed,
      ],
    ];
    for (const [filter, matches] of filters) {
      const expected = newestFirst.filter(matches).map((r) => r.id);
      for (const limit of [1, 3, 7, 50]) {
        const pages: Record<string, { ids: number[][]; cursors: Array<string | undefined> }> = {};
        for (const searchPath of [undefined, ...PATHS])
          pages[searchPath ?? 'chosen'] = pagesOf(filter, { limit, ...(searchPath ? { searchPath } : {}) });
        const label = `${JSON.stringify(filter)}, pages of ${limit}`;
        expect(pages.chosen?.ids.flat(), label).toEqual(expected);
        expect(pages.chosen?.ids.every((p, i, all) => p.length === limit || i === all.length - 1)).toBe(true);
        for (const path of PATHS) expect(pages[path], `${label}, ${path}`).toEqual(pages.chosen);
      }
    }
  });

  it('keys each review by the hour of its date, clamped, and its row id', () => {
    const at = Date.UTC(2026, 10, 20, 10, 30);
    const ids = [at, Date.UTC(1200, 0, 1), Date.UTC(3000, 0, 1), -1].map((createdAt) =>
      seed.review({ content: 'keyed', createdAt }),
    );
    const keys = store.db.$client
      .prepare<[], { hour: number; id: number }>(
        "select rowid >> 40 as hour, rowid & 1099511627775 as id from reviews_fts where reviews_fts match 'keyed' order by rowid",
      )
      .all();
    expect(keys).toEqual([
      { hour: keyHour(Date.UTC(1200, 0, 1)), id: ids[1] },
      { hour: 0, id: ids[3] },
      { hour: Math.floor(at / HOUR), id: ids[0] },
      { hour: 2 ** 22 - 1, id: ids[2] },
    ]);
    expect(keyHour(Date.UTC(1200, 0, 1))).toBe(-(2 ** 22));
  });
});

describe('a topic filter reaches the same reviews along the dates or from its days', () => {
  const SORTS: InboxSort[] = ['newest', 'seen', 'severity', 'app'];
  const topic = (name: string) => ({ name, words: [name] });

  interface Seeded {
    id: number;
    app: string;
    rating: number;
    topics: string[];
  }

  /**
   * Reviews over a few days and at their edges, a custom topic `klaviyo` on every sixth and the built-in
   * `billing` on more. By row, in turn: exactly midnight, the day's last millisecond, two within the day,
   * and before 1970 (midnight, or within the day); every seventh date did not parse (first seen instead).
   * Then edits as a poll makes them: dates moved across midnight, the topic taken from a review and given to
   * another; the triggers move their day counts.
   */
  function seedStore(): Seeded[] {
    const rng = new Rng(11);
    const midnight = Date.UTC(2026, 10, 23);
    const rows: Seeded[] = [];
    for (let i = 0; i < 150; i++) {
      const day = midnight - (Math.floor(rng.next() * 6) - 1) * DAY;
      const within = 1 + Math.floor(rng.next() * (DAY - 2));
      const when = [day, day + DAY - 1, day + within, day + within, i % 2 === 0 ? -DAY : -within][
        i % 5
      ] as number;
      const topics = [...(rng.next() < 0.3 ? ['billing'] : []), ...(i % 6 === 0 ? ['klaviyo'] : [])];
      const app = ['shop', 'rival', 'other'][Math.floor(rng.next() * 3)] as string;
      const rating = 1 + Math.floor(rng.next() * 5);
      const unparsed = i % 7 === 3;
      const id = seed.review({
        app,
        rating,
        content: topics.join(' ') || 'nothing',
        createdAt: unparsed ? null : when,
        firstSeenAt: unparsed ? when : when + Math.floor(rng.next() * 3 * DAY),
        topics: topics.map(topic),
      });
      if (rating <= 2) seed.alert(id, rating === 1 ? 'high' : 'medium');
      rows.push({ id, app, rating, topics });
    }
    const client = store.db.$client;
    const klaviyo = rows.filter((r) => r.topics.includes('klaviyo'));
    for (const [k, by] of [
      [0, DAY],
      [1, 1],
      [2, -DAY],
    ] as const) {
      const row = klaviyo[k] as Seeded;
      client
        .prepare('update reviews set created_at = created_at + ? where id = ? and created_at is not null')
        .run(by, row.id);
    }
    const taken = klaviyo[3] as Seeded;
    const given = rows.find((r) => r.topics.length === 0) as Seeded;
    for (const [row, topics] of [
      [taken, taken.topics.filter((t) => t !== 'klaviyo')],
      [given, ['klaviyo']],
    ] as const) {
      client
        .prepare('update reviews set topics = ? where id = ?')
        .run(JSON.stringify(topics.map(topic)), row.id);
      row.topics = [...topics];
    }
    return rows;
  }

  it('for each sort, filter and page size: the same pages and cursors on both paths', () => {
    const rows = seedStore();
    const klaviyo = rows.filter((r) => r.topics.includes('klaviyo'));
    expect(klaviyo.length).toBe(25);
    const filters: InboxFilter[] = [
      { topic: 'klaviyo' },
      { topic: 'klaviyo', stars: [1, 2] },
      { topic: 'klaviyo', apps: ['shop'] },
      { topic: 'klaviyo', apps: ['shop', 'rival'], from: new Date(NOW - 2 * DAY) },
      { topic: 'klaviyo', to: new Date(0) },
      { topic: 'klaviyo', text: 'billing' },
      { topic: 'billing', from: new Date(NOW - 3 * DAY), to: new Date(NOW) },
      { topic: 'nothing-has-it' },
    ];
    for (const filter of filters) {
      const expected = rows
        .filter((r) => r.topics.includes(filter.topic as string))
        .filter((r) => !filter.stars || filter.stars.includes(r.rating))
        .filter((r) => !filter.apps || filter.apps.includes(r.app)).length;
      for (const sort of SORTS) {
        for (const limit of [1, 4, 50]) {
          const label = `${JSON.stringify(filter)}, ${sort}, pages of ${limit}`;
          const chosen = pagesOf(filter, { limit, sort });
          expect(pagesOf(filter, { limit, sort, topicPath: 'from-days' }), label).toEqual(chosen);
          expect(pagesOf(filter, { limit, sort, topicPath: 'along-dates' }), label).toEqual(chosen);
          if (!filter.from && !filter.to && !filter.text)
            expect(chosen.ids.flat(), label).toHaveLength(expected);
        }
      }
      const buckets = { all: {}, competitors: { apps: ['rival'] } };
      const counts = countInbox(store.db, filter, buckets, { topicPath: 'from-days' });
      expect(countInbox(store.db, filter, buckets, { topicPath: 'along-dates' })).toEqual(counts);
    }
    // A review's neighbours in the list, both ways, on either path.
    const middle = klaviyo[12] as Seeded;
    for (const sort of SORTS) {
      const along = neighboursInList(store.db, { topic: 'klaviyo' }, middle.id, {
        sort,
        topicPath: 'along-dates',
      });
      expect(along.previous).toBeDefined();
      expect(
        neighboursInList(store.db, { topic: 'klaviyo' }, middle.id, { sort, topicPath: 'from-days' }),
      ).toEqual(along);
    }
  });

  it('starts from the app-days of a custom topic few reviews have, and walks the dates for others', () => {
    seedStore();
    // A store where the topic is rare: its days' reviews are fewer than a walk would read to fill a page.
    for (let i = 0; i < 400; i++) seed.review({ content: 'x', createdAt: NOW - (10 + i) * DAY });
    const p = (filter: InboxFilter) => explainInbox(store.db, filter).join(' | ');
    expect(p({ topic: 'klaviyo' })).toMatch(
      /SEARCH d USING (COVERING )?INDEX topic_day_counts_topic \(topic=\?\) \| SEARCH d_r USING (COVERING )?INDEX reviews_app_inbox/,
    );
    expect(p({ topic: 'nothing-has-it' })).toMatch(/topic_day_counts_topic/);
    // Only the days of the period and the apps of the filter are looked up.
    expect(p({ topic: 'klaviyo', apps: ['shop'], from: new Date(NOW - 2 * DAY) })).toMatch(
      /SEARCH d USING (COVERING )?INDEX topic_day_counts_topic \(topic=\? AND day>\?\)/,
    );
    // On more app-days than the planner counts: the walk, without counting further.
    expect(explainInbox(store.db, { topic: 'klaviyo' }, { topicDaysToSort: 3 }).join(' | ')).not.toMatch(
      /topic_day_counts/,
    );
    // A built-in topic is common: a page fills within a short walk.
    expect(p({ topic: 'billing' })).not.toMatch(/topic_day_counts/);
    expect(p({ topic: 'billing' })).toMatch(/^CO-ROUTINE p \| SCAN r USING (COVERING )?INDEX reviews_inbox/);
    // A custom topic most reviews have: the walk finds a page sooner than its days' reviews are read.
    for (let i = 0; i < 600; i++)
      seed.review({ content: 'x', createdAt: NOW - (10 + (i % 400)) * DAY, topics: [topic('common')] });
    expect(p({ topic: 'common' })).not.toMatch(/topic_day_counts/);
  });
});

describe('a review with everything', () => {
  it('has its triage, notes, audit, edits and alerts with their deliveries', () => {
    const id = seed.review({ rating: 2 });
    const alert = seed.alert(id, 'high', [
      { channel: 'support', status: 'sent' },
      { channel: 'email', status: 'failed' },
    ]);
    applyTriage(store.db, id, { status: 'acknowledged', note: 'on it' }, 'ana', AT);
    const detail = reviewDetail(store.db, id);
    expect(detail?.review.id).toBe(id);
    expect(detail?.triage.status).toBe('acknowledged');
    expect(detail?.notes.map((n) => n.body)).toEqual(['on it']);
    expect(detail?.audit.map((e) => e.field)).toEqual(['status', 'note']);
    expect(detail?.alerts).toHaveLength(1);
    expect(detail?.alerts[0]?.alert.id).toBe(alert);
    expect(detail?.alerts[0]?.deliveries.map((d) => [d.channel, d.status])).toEqual([
      ['support', 'sent'],
      ['email', 'failed'],
    ]);
    expect(reviewDetail(store.db, 12345)).toBeUndefined();
  });
});

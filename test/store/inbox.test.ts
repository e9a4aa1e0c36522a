import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { explainInbox, ftsQuery, type InboxFilter, listInbox } from '../../src/store/inbox.js';
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

/** Every page of a list, following the cursors. */
function walk(filter: InboxFilter, limit: number): number[][] {
  const pages: number[][] = [];
  let cursor: string | undefined;
  do {
    const page = listInbox(store.db, filter, { limit, ...(cursor ? { cursor } : {}) });
    pages.push(page.rows.map((r) => r.id));
    cursor = page.next;
  } while (cursor && pages.length < 100);
  return pages;
}

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

  it('walks the dates for a search matching many reviews, with the same answer', () => {
    const matching = [1, 2, 3, 4, 5].map((d) =>
      seed.review({ content: `refund ${d}`, createdAt: NOW - d * DAY }),
    );
    seed.review({ content: 'nothing', createdAt: NOW });
    const few = listInbox(store.db, { text: 'refund' }, { limit: 2 });
    const many = listInbox(store.db, { text: 'refund' }, { limit: 2, searchMatchesToSort: 3 });
    expect(many.rows.map((r) => r.id)).toEqual(few.rows.map((r) => r.id));
    expect(many.next).toBe(few.next);
    expect(few.rows.map((r) => r.id)).toEqual(matching.slice(0, 2));
    const walk = explainInbox(store.db, { text: 'refund', from }, { searchMatchesToSort: 3 }).join(' | ');
    expect(walk).toMatch(/^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_inbox/);
    expect(walk).not.toMatch(/TEMP B-TREE/);
    const probed = listInbox(
      store.db,
      { text: 'refund' },
      { limit: 2, searchMatchesToSort: 3, searchMatchesToProbe: 4 },
    );
    expect(probed.rows.map((r) => r.id)).toEqual(few.rows.map((r) => r.id));
    expect(probed.next).toBe(few.next);
    const ask = explainInbox(
      store.db,
      { text: 'refund', from },
      { searchMatchesToSort: 3, searchMatchesToProbe: 4 },
    ).join(' | ');
    expect(ask).toMatch(
      /^CO-ROUTINE p \| SEARCH r USING (COVERING )?INDEX reviews_inbox .*SCAN f EXISTS VIRTUAL TABLE/,
    );
    expect(ask).not.toMatch(/TEMP B-TREE/);
    const sort = explainInbox(store.db, { text: 'refund', from }).join(' | ');
    expect(sort).toMatch(
      /SEARCH r USING INTEGER PRIMARY KEY .*reviews_fts VIRTUAL TABLE INDEX .*TEMP B-TREE/,
    );
  });

  it('searches the full-text index, not the text', () => {
    const p = plan({ text: 'refund', from });
    expect(p).toMatch(/reviews_fts VIRTUAL TABLE INDEX/);
    expect(p).not.toMatch(/SCAN r\b/);
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

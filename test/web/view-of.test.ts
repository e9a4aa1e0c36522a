import { describe, expect, it } from 'vitest';
import { DATA_VIEW, PAGE_VIEW, parseInboxQuery, statusesOutside, viewOf } from '../../src/web/filters.js';
import { filtersLabel } from '../../src/web/pages/inbox-notes.js';

const page = { me: 'ana', defaultView: PAGE_VIEW };
const data = { me: undefined, defaultView: DATA_VIEW };
const query = (raw: Record<string, string>) => parseInboxQuery(raw).query;

describe('the view a query shows', () => {
  it('is the one named, else the one that lists its statuses, else the default', () => {
    expect(viewOf(query({}), page)).toBe('open');
    expect(viewOf(query({ status: 'new' }), page)).toBe('open');
    expect(viewOf(query({ status: 'new,acknowledged' }), page)).toBe('open');
    // A bookmark from before views: not the Open view narrowed to nothing.
    expect(viewOf(query({ status: 'resolved' }), page)).toBe('resolved');
    expect(viewOf(query({ status: 'ignored' }), page)).toBe('ignored');
    expect(viewOf(query({ status: 'new,resolved' }), page)).toBe('all');
    // Named, it stays, even narrowed to nothing (the page says so).
    expect(viewOf(query({ view: 'open', status: 'resolved' }), page)).toBe('open');
    // The API and the CSV list every status without a view, as before.
    expect(viewOf(query({ status: 'resolved' }), data)).toBe('all');
  });

  it('names the statuses a view never lists', () => {
    expect(statusesOutside('open', ['new', 'resolved'])).toEqual(['resolved']);
    expect(statusesOutside('resolved', ['resolved'])).toEqual([]);
    expect(statusesOutside('competitors', ['ignored'])).toEqual([]);
    expect(statusesOutside('mine', ['ignored'])).toEqual(['ignored']);
  });
});

describe("the folded filters' button", () => {
  it('names the filters set', () => {
    expect(filtersLabel(query({}))).toBe('Filters');
    expect(filtersLabel(query({ view: 'new', sort: 'severity' }))).toBe('Filters');
    expect(filtersLabel(query({ q: 'refund', app: 'shop', from: '2026-11-01' }))).toBe(
      'Filters (3 set: search, app, dates)',
    );
  });
});

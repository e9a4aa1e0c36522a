import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { inboxFilterOf, parseInboxQuery, queryString } from '../../src/web/filters.js';
import { html, isSafeHtml, safeUrl, trusted } from '../../src/web/html.js';

describe('html``', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `"><script>alert(1)</script><img src=x onerror=alert(2)> & 'x'`;
    const out = html`<p title="${name}">${name}</p>`.text;
    expect(out).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &amp; &#39;x&#39;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &amp; &#39;x&#39;</p>',
    );
  });

  it('keeps what html`` built, joins lists, drops nothing-values, and escapes strings in lists', () => {
    const items = ['<b>', html`<i>ok</i>`];
    expect(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`.text).toBe(
      '<ul><li>&lt;b&gt;</li><li><i>ok</i></li></ul>',
    );
    expect(html`${null}${undefined}${false}${0}`.text).toBe('0');
    expect(html`${['<a>', ['<b>']]}`.text).toBe('&lt;a&gt;&lt;b&gt;');
  });

  it('does not take a look-alike object for safe html', () => {
    const fake = { text: '<script>' } as unknown as string;
    expect(isSafeHtml(fake)).toBe(false);
    expect(html`${fake}`.text).toBe('[object Object]');
    expect(html`${trusted('<br>')}`.text).toBe('<br>');
  });

  it('removes bidi overrides and control characters from untrusted text', () => {
    expect(html`${'abc\u202Eevil\u2066x\u0007'}`.text).toBe('abcevilx');
  });
});

describe('safeUrl', () => {
  it('passes http and https only', () => {
    expect(safeUrl('https://apps.example.com/a?b=1')).toBe('https://apps.example.com/a?b=1');
    for (const url of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'data:text/html,x',
      '//evil.example',
      '/x',
      '',
      null,
    ]) {
      expect(safeUrl(url)).toBeUndefined();
    }
  });
});

describe('inbox filters in the URL', () => {
  const config = parseConfig(
    {
      apps: [{ handle: 'shop' }, { handle: 'mine' }, { handle: 'rival', role: 'competitor' }],
      catalog: { simulator: true },
    },
    {},
  );
  const now = new Date('2026-11-23T12:00:00Z');

  it('defaults to the low-rated reviews of the last 30 days', () => {
    const { query, problems } = parseInboxQuery({});
    expect(problems).toEqual([]);
    expect(inboxFilterOf(query, config, now)).toEqual({
      stars: [1, 2, 3],
      from: new Date('2026-10-24T12:00:00Z'),
    });
  });

  it('reads repeated and comma-separated values, roles from the config, and whole days', () => {
    const { query, problems } = parseInboxQuery({
      stars: ['1', '2,5'],
      priority: 'high,critical',
      status: ['new', 'resolved'],
      role: 'own',
      app: 'rival',
      from: '2026-11-01',
      to: '2026-11-10',
      q: ' refund ',
      tag: 'Billing Issue',
      assignee: 'ana',
    });
    expect(problems).toEqual([]);
    expect(inboxFilterOf(query, config, now)).toEqual({
      apps: [],
      stars: [1, 2, 5],
      priorities: ['critical', 'high'],
      statuses: ['new', 'resolved'],
      assignee: 'ana',
      tag: 'billing-issue',
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-11T00:00:00Z'),
      text: 'refund',
    });
    expect(inboxFilterOf(parseInboxQuery({ role: 'own' }).query, config, now).apps).toEqual(['shop', 'mine']);
    expect(inboxFilterOf(parseInboxQuery({ period: 'all' }).query, config, now).from).toBeUndefined();
  });

  it('drops what makes no sense, and says so', () => {
    const { query, problems } = parseInboxQuery({
      stars: '0,3,x',
      status: 'open',
      priority: 'urgent',
      from: '2026-13-45',
      period: 'forever',
      role: 'boss',
    });
    expect(query).toEqual({ stars: [3] });
    expect(problems).toHaveLength(6);
  });

  it('writes a canonical, shareable query string', () => {
    const { query } = parseInboxQuery({ status: ['resolved', 'new'], q: 'a&b', stars: '2,1' });
    expect(queryString(query)).toBe('?stars=1%2C2&status=new%2Cresolved&q=a%26b');
    expect(queryString(query, { cursor: '5_1', q: undefined })).toBe(
      '?stars=1%2C2&status=new%2Cresolved&cursor=5_1',
    );
    expect(queryString({})).toBe('');
  });
});

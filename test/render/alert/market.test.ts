import { expect, it } from 'vitest';
import type { ListingChangeAlert, RankMoveAlert } from '../../../src/alerts/types.js';
import { renderEmail, renderSlack } from '../../../src/render/index.js';

const HOSTILE = '<!channel> Tom & Jerry <https://evil.example|click> <script>x</script>';

const rank: RankMoveAlert = {
  kind: 'rank',
  app: { handle: 'my-app', name: HOSTILE, url: 'https://apps.platform.example/my-app' },
  category: { handle: 'store-design', name: 'Store design' },
  priority: 'high',
  move: {
    category: 'store-design',
    handle: 'my-app',
    name: HOSTILE,
    at: 0,
    kind: 'fell',
    topN: 'left',
    from: 5,
    to: 13,
    previous: 13,
    band: 4,
    ownMove: 9,
    reasons: [
      {
        kind: 'passed',
        apps: [{ handle: 'evil', name: HOSTILE, from: 9, to: 8, changes: [`price cut on "${HOSTILE}"`] }],
      },
    ],
  },
};

const listing: ListingChangeAlert = {
  kind: 'listing',
  app: { handle: 'rival', name: 'Rival', url: 'https://apps.platform.example/rival' },
  role: 'competitor',
  priority: 'medium',
  changes: [
    {
      field: 'pricing',
      alerts: true,
      kind: 'price-down',
      plan: HOSTILE,
      from: '$50/month',
      to: '$25/month',
      minor: false,
    },
  ],
};

it('escapes hostile app names and plan names in every channel, and always says why a rank moved', () => {
  for (const alert of [rank, listing]) {
    const slack = JSON.stringify(
      renderSlack({ kind: 'single', alert }, { inboxUrl: 'https://reviews.example.com' }),
    );
    expect(slack).not.toContain('<!channel>');
    expect(slack).not.toContain('<https://evil.example');
    expect(slack).toContain('&lt;!channel&gt;');
    const email = renderEmail({ kind: 'single', alert }, { inboxUrl: 'https://reviews.example.com' });
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;');
    expect(email.subject).not.toMatch(/[\r\n]/);
  }
  const text = renderEmail({ kind: 'single', alert: rank }, { inboxUrl: 'https://reviews.example.com' }).text;
  expect(text).toMatch(/Why it may have happened:\n- Passed by 1 app/);
  expect(text).toContain('https://reviews.example.com/categories/store-design');
  expect(text).toContain('https://reviews.example.com/apps/my-app');
  expect(renderEmail({ kind: 'single', alert: listing }).text).toMatch(
    /What changed:\n- ".*": price down \$50\/month → \$25\/month/,
  );
});

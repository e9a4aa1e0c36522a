/**
 * The digest's triage figures from a real store with a scripted history: alerts raised and delivered,
 * reviews acknowledged, resolved, reopened, and the inbox's view the digest links to.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectDigest, type DigestData } from '../../src/digest/index.js';
import { alertedAt, median } from '../../src/digest/triage.js';
import { formatWait } from '../../src/render/digest/digest-triage.js';
import { renderDigestEmail, renderDigestSlack } from '../../src/render/index.js';
import { DEFAULT_SCORING_RULES } from '../../src/scoring/index.js';
import type { Priority } from '../../src/scoring/priority.js';
import type { StoreDb } from '../../src/store/db.js';
import { listInbox } from '../../src/store/inbox.js';
import { alerts, deliveries } from '../../src/store/schema.js';
import { applyTriage, reopenIfRerated } from '../../src/store/triage.js';
import { inboxFilterOf, parseInboxQuery } from '../../src/web/filters.js';
import { tempStore } from '../helpers/index.js';
import { inboxConfig } from '../helpers/web.js';
import { APPS, NOW, WEEK } from './scenario.js';
import { reviewAlertPayload, Seed, visibleText } from './seed.js';

let store: ReturnType<typeof tempStore>;

beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

const u = (iso: string) => new Date(iso);

/** A review alert about one review, with one delivery sent at `sentAt` (or failed, without one). */
function alertAbout(
  db: StoreDb,
  handle: string,
  reviewRowId: number,
  priority: Priority,
  raised: string,
  sentAt: string | null,
): void {
  const { id } = db
    .insert(alerts)
    .values({
      appHandle: handle,
      kind: 'review',
      dedupeKey: `review-${reviewRowId}-${raised}`,
      priority,
      reviewRowId,
      payload: reviewAlertPayload(handle, 'Someone', 1),
      createdAt: u(raised),
    })
    .returning({ id: alerts.id })
    .get();
  db.insert(deliveries)
    .values({
      alertId: id,
      channel: 'support',
      appHandle: handle,
      status: sentAt === null ? 'failed' : 'sent',
      createdAt: u(raised),
      sentAt: sentAt === null ? null : u(sentAt),
    })
    .run();
}

/**
 * The week of 16–22 November 2026 (Berlin). Acknowledged in it, with an alert before: A 60 min after
 * its delivery, B 3 h after its (throttled) delivery, C 24 h after it was raised (its delivery failed),
 * F 20 min after it was raised (seen in the inbox before its held delivery went out): a median of 2 h.
 * Open now: A (critical), D and G (high), F (medium), E (low), and L, alerted after the week (high).
 */
function seedTriage(db: StoreDb): void {
  const seed = new Seed(db).app('my-app', 'My App').app('rival', 'Rival');
  const review = (handle: string, rating = 1) =>
    seed.review(handle, { rating, content: 'It broke', createdAt: u('2026-11-10T10:00:00Z') });
  const status = (id: number, to: 'acknowledged' | 'resolved' | 'ignored', at: string, actor = 'ana') =>
    applyTriage(db, id, { status: to }, actor, u(at));

  const a = review('my-app');
  alertAbout(db, 'my-app', a, 'critical', '2026-11-17T10:00:00Z', '2026-11-17T10:05:00Z');
  status(a, 'acknowledged', '2026-11-17T11:05:00Z');

  const b = review('my-app');
  alertAbout(db, 'my-app', b, 'high', '2026-11-18T09:00:00Z', '2026-11-18T09:30:00Z');
  status(b, 'resolved', '2026-11-18T12:30:00Z', '@token');

  const c = review('my-app');
  alertAbout(db, 'my-app', c, 'medium', '2026-11-19T08:00:00Z', null);
  status(c, 'acknowledged', '2026-11-20T08:00:00Z');
  status(c, 'ignored', '2026-11-20T09:00:00Z');

  const d = review('my-app');
  alertAbout(db, 'my-app', d, 'high', '2026-11-20T10:00:00Z', '2026-11-20T10:01:00Z');
  // A second, lower alert (a re-rating) does not lower its priority.
  alertAbout(db, 'my-app', d, 'low', '2026-11-21T10:00:00Z', '2026-11-21T10:01:00Z');

  // Acknowledged the week before: open, not in this week's median.
  const e = review('my-app');
  alertAbout(db, 'my-app', e, 'low', '2026-11-10T12:00:00Z', '2026-11-10T12:01:00Z');
  status(e, 'acknowledged', '2026-11-12T12:00:00Z');

  const f = review('my-app');
  alertAbout(db, 'my-app', f, 'medium', '2026-11-21T09:40:00Z', '2026-11-21T11:00:00Z');
  status(f, 'acknowledged', '2026-11-21T10:00:00Z');

  // First acknowledged on 2 November; reopened by a re-rating and acknowledged again in the week.
  const g = review('my-app');
  alertAbout(db, 'my-app', g, 'high', '2026-11-01T09:00:00Z', '2026-11-01T09:01:00Z');
  status(g, 'acknowledged', '2026-11-02T09:00:00Z');
  status(g, 'resolved', '2026-11-03T09:00:00Z');
  db.$client.transaction(() => reopenIfRerated(db, g, { from: 2, to: 1 }, u('2026-11-18T08:00:00Z')))();
  status(g, 'acknowledged', '2026-11-18T09:00:00Z');

  // Acknowledged without any alert about it: nothing to respond to, and not an alerted review.
  status(review('my-app'), 'acknowledged', '2026-11-19T10:00:00Z');
  // A 5-star review nobody triaged, with no alert.
  review('my-app', 5);
  // A competitor's alerted review, acknowledged in the week: the team's figures are about its own apps.
  const j = review('rival');
  alertAbout(db, 'rival', j, 'critical', '2026-11-17T10:00:00Z', '2026-11-17T10:01:00Z');
  status(j, 'acknowledged', '2026-11-17T10:02:00Z');
  // Acknowledged after the week ended.
  const k = review('my-app');
  alertAbout(db, 'my-app', k, 'medium', '2026-11-22T20:00:00Z', '2026-11-22T20:01:00Z');
  status(k, 'resolved', '2026-11-23T07:00:00Z');
  // Alerted after the week ended and still new: open now.
  const l = review('my-app');
  alertAbout(db, 'my-app', l, 'high', '2026-11-23T07:30:00Z', '2026-11-23T07:31:00Z');
}

function collect(db: StoreDb): DigestData {
  return collectDigest(db, {
    apps: APPS,
    period: WEEK,
    maxRating: 3,
    scoring: DEFAULT_SCORING_RULES,
    now: NOW,
  });
}

describe('the pure parts', () => {
  it('takes the median, the mean of the middle two for an even count', () => {
    expect(median([])).toBeNull();
    expect(median([5])).toBe(5);
    expect(median([30, 10, 20])).toBe(20);
    expect(median([40, 10, 30, 20])).toBe(25);
  });

  it('counts from the first delivery, or from when it was raised when it was acknowledged before one', () => {
    const raisedAt = u('2026-11-17T10:00:00Z');
    const firstSentAt = u('2026-11-17T10:30:00Z');
    expect(alertedAt({ raisedAt, firstSentAt, acknowledgedAt: u('2026-11-17T11:00:00Z') })).toEqual(
      firstSentAt,
    );
    expect(alertedAt({ raisedAt, firstSentAt, acknowledgedAt: u('2026-11-17T10:10:00Z') })).toEqual(raisedAt);
    expect(alertedAt({ raisedAt, firstSentAt: null, acknowledgedAt: u('2026-11-18T10:00:00Z') })).toEqual(
      raisedAt,
    );
  });

  it('says a wait as a person would', () => {
    expect(formatWait(20_000)).toBe('under a minute');
    expect(formatWait(45 * 60_000)).toBe('45 min');
    expect(formatWait(120 * 60_000)).toBe('2 h');
    expect(formatWait(200 * 60_000)).toBe('3 h 20 min');
    expect(formatWait(52 * 3_600_000)).toBe('2 d 4 h');
  });
});

describe('the digest of a week with a triage history', () => {
  beforeEach(() => seedTriage(store.db));

  it('counts the open alerted reviews of its own apps by priority, and the median time to acknowledge', () => {
    expect(collect(store.db).triage).toEqual({
      open: { critical: 1, high: 3, medium: 1, low: 1 },
      openTotal: 6,
      acknowledged: 4,
      medianAckMs: 2 * 3_600_000,
    });
  });

  it("counts what the inbox's view of open reviews lists, per priority", () => {
    const config = inboxConfig({ publicUrl: 'https://inbox.example.com' });
    const data = collect(store.db);
    const email = renderDigestEmail(data, { inboxUrl: 'https://inbox.example.com' });
    const links = [...email.html.matchAll(/href="(https:\/\/inbox\.example\.com\/\?[^"]+)"/g)].map((m) =>
      (m[1] ?? '').replace(/&amp;/g, '&'),
    );
    expect(links).toHaveLength(5);
    const counts = links.map((link) => {
      const raw = Object.fromEntries(new URL(link).searchParams);
      const { query, problems } = parseInboxQuery(raw);
      expect(problems).toEqual([]);
      expect(query.role).toBe('own');
      // The test config's own app is `shop`: ask for the digest's own app by name instead.
      const filter = { ...inboxFilterOf(query, config, NOW), apps: ['my-app'] };
      return [query.priority?.join(','), listInbox(store.db, filter, { limit: 500 }).rows.length];
    });
    expect(counts).toEqual([
      ['critical', 1],
      ['high', 3],
      ['medium', 1],
      ['low', 1],
      ['critical,high,medium,low', 6],
    ]);
    expect(links.at(-1)).toBe(
      'https://inbox.example.com/?role=own&stars=1,2,3,4,5&priority=critical,high,medium,low&status=new,acknowledged&period=all',
    );
  });

  it('shows the figures in the email (HTML and text) and on Slack, linked to the inbox when it has an address', () => {
    const data = collect(store.db);
    const open = '6 alerted reviews still open (new or acknowledged): 1 critical, 3 high, 1 medium, 1 low.';
    const acknowledged =
      '4 alerted reviews acknowledged this week: a median of 2 h from alert to acknowledgement.';
    const inbox = 'https://inbox.example.com';

    const email = renderDigestEmail(data, { inboxUrl: inbox });
    // Tags read as spaces: the links around each priority leave one before the comma.
    const visible = visibleText(email.html)
      .replace(/\s+/g, ' ')
      .replace(/ ([,.])/g, '$1');
    expect(visible).toContain('Triage');
    expect(visible).toContain(`${open} Open them in the inbox`);
    expect(visible).toContain(acknowledged);
    expect(email.text).toContain(`TRIAGE\n${open}\n${acknowledged}\nOpen in the inbox: ${inbox}/?role=own`);
    expect(email.text).toContain(`  critical: ${inbox}/?role=own&stars=1,2,3,4,5&priority=critical&`);

    const slack = JSON.stringify(renderDigestSlack(data, { inboxUrl: inbox }).blocks);
    expect(slack).toContain(open);
    expect(slack).toContain(acknowledged);
    expect(slack).toContain(
      `<${inbox}/?role=own&amp;stars=1,2,3,4,5&amp;priority=critical,high,medium,low&amp;status=new,acknowledged&amp;period=all|Open them in the inbox>`,
    );

    // Without the inbox's address: the same figures, no link.
    const plain = renderDigestEmail(data);
    expect(plain.text).toContain(`TRIAGE\n${open}\n${acknowledged}\n`);
    expect(plain.text).not.toContain('inbox.example.com');
    expect(plain.html).not.toContain('Open them in the inbox');
    expect(JSON.stringify(renderDigestSlack(data).blocks)).not.toContain('Open them in the inbox');
  });

  it('says so when nothing is open and nothing was acknowledged', () => {
    const empty = tempStore();
    try {
      new Seed(empty.db).app('my-app').app('rival');
      const data = collect(empty.db);
      expect(data.triage).toMatchObject({ openTotal: 0, acknowledged: 0, medianAckMs: null });
      const email = renderDigestEmail(data, { inboxUrl: 'https://inbox.example.com' });
      expect(email.text).toContain(
        'TRIAGE\nNo alerted review is still open.\nNo alerted review was acknowledged this week.',
      );
      expect(email.text).not.toContain('inbox.example.com');
    } finally {
      empty.cleanup();
    }
  });
});

describe('the inbox address', () => {
  it('is escaped in HTML and Slack, and one that is not http(s) gives no link', () => {
    seedTriage(store.db);
    const data = collect(store.db);
    for (const inboxUrl of ['javascript:alert(1)', 'not a url']) {
      expect(renderDigestEmail(data, { inboxUrl }).html).not.toContain('Open them in the inbox');
    }
    // A URL parser never lets `"` or `<` through to the address; `&` in the query is escaped.
    const html = renderDigestEmail(data, { inboxUrl: 'https://inbox.example.com' }).html;
    expect(html).toContain('href="https://inbox.example.com/?role=own&amp;stars=1,2,3,4,5&amp;priority=');
  });
});

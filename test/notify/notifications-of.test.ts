import { describe, expect, it } from 'vitest';
import type { Alert } from '../../src/alerts/types.js';
import { notificationsOf } from '../../src/notify/deliver.js';
import type { DeliveryWithAlert } from '../../src/store/outbox.js';
import { incident, reviewAlert, topicSpike } from '../fixtures/alert-sample.js';

function delivery(id: number, alert: Alert, groupKey: string | null): DeliveryWithAlert<Alert> {
  return {
    id,
    alertId: id,
    channel: 'support',
    appHandle: 'my-app',
    status: 'pending',
    groupKey,
    attempts: 0,
    lastError: null,
    createdAt: new Date(0),
    sentAt: null,
    heldAt: null,
    alert,
    priority: 'high',
  };
}

// An incident of reviews 100..103, and alerts of two of them and of one it does not list.
const wave = incident(4);
const listed = (i: number) => reviewAlert({ ...wave.reviews[i] });
const other = reviewAlert({ reviewId: '999', content: 'Something else' });

describe('notificationsOf', () => {
  it("puts the review alerts an incident lists and shares its key with in the incident's message", () => {
    const batch = [
      delivery(1, listed(2), 'p1-support-incident'),
      delivery(2, listed(3), 'p1-support-incident'),
      delivery(3, wave, 'p1-support-incident'),
      delivery(4, other, 'p1-support-incident'),
    ];
    const out = notificationsOf(batch, true);
    expect(out.map((m) => m.ids)).toEqual([[3, 1, 2], [4]]);
    const [first] = out;
    expect(first?.notification).toMatchObject({ kind: 'group', incident: wave });
    expect(
      first?.notification.kind === 'group' && first.notification.alerts.map((a) => a.review.reviewId),
    ).toEqual(['102', '103']);
  });

  it('sends each alone where programs read it, or where the incident has no key', () => {
    const keyed = [delivery(1, listed(0), 'k'), delivery(2, wave, 'k')];
    expect(notificationsOf(keyed, false).map((m) => m.notification.kind)).toEqual(['single', 'single']);
    const unkeyed = [delivery(1, listed(0), null), delivery(2, wave, null)];
    expect(notificationsOf(unkeyed, true).map((m) => m.ids)).toEqual([[1], [2]]);
  });

  it('leaves an incident without its reviews in the batch a single message', () => {
    const out = notificationsOf([delivery(1, wave, 'k'), delivery(2, other, 'k')], true);
    expect(out.map((m) => [m.notification.kind, m.ids])).toEqual([
      ['single', [2]],
      ['single', [1]],
    ]);
  });

  it('folds only deliveries of its key, and none when more ride than a group holds', () => {
    const otherKey = notificationsOf([delivery(1, listed(0), 'a'), delivery(2, wave, 'b')], true);
    expect(otherKey.map((m) => m.notification.kind)).toEqual(['single', 'single']);
    const big = incident(25);
    const many = big.reviews.map((r, i) => delivery(i + 1, reviewAlert({ ...r }), 'k'));
    const out = notificationsOf([...many, delivery(99, big, 'k')], true);
    expect(out.some((m) => m.notification.kind === 'group' && m.notification.incident)).toBe(false);
    expect(out.flatMap((m) => m.ids).sort((a, b) => a - b)).toEqual([...many.map((d) => d.id), 99]);
  });

  it("puts the review alerts a topic spike lists in the spike's message, and none of a spike stored before", () => {
    const spike = { ...topicSpike(), reviewIds: ['501', '502', '503', '504', '505', '506'] };
    const rider = reviewAlert({ reviewId: '506', content: 'Klaviyo connection keeps failing' });
    const batch = [
      delivery(1, rider, 'p1-support-spike-3'),
      delivery(2, other, 'p1-support-spike-3'),
      delivery(3, spike, 'p1-support-spike-3'),
    ];
    const out = notificationsOf(batch, true);
    expect(out.map((m) => m.ids)).toEqual([[3, 1], [2]]);
    expect(out[0]?.notification).toMatchObject({ kind: 'group', spike, alerts: [rider] });
    // Where programs read, the spike carries nothing; nor does a spike written before spikes listed them.
    expect(notificationsOf(batch, false).find((m) => m.ids.includes(3))?.ids).toEqual([3]);
    const { reviewIds: _ids, ...older } = spike;
    const old = notificationsOf([delivery(1, rider, 'k'), delivery(3, older, 'k')], true);
    expect(old.map((m) => m.notification.kind)).toEqual(['single', 'single']);
  });
});

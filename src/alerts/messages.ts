import type { DeliveryRef } from '../store/outbox.js';

/**
 * The deliveries that go out together as one message to one channel: a single alert, the alerts a poll
 * grouped (one group key), or a flush of what a throttle held back for one app on one channel.
 */
export type OutboxMessage =
  | { kind: 'single'; deliveryIds: number[] }
  | { kind: 'group'; groupKey: string; deliveryIds: number[] }
  | { kind: 'flush'; channel: string; app: string; deliveryIds: number[] };

/** Groups deliveries into messages: one per group key, one per delivery without one, one flush per held pair. */
export function messagesOf(rows: readonly DeliveryRef[]): OutboxMessage[] {
  const singles: OutboxMessage[] = [];
  const groups = new Map<string, OutboxMessage & { kind: 'group' }>();
  const flushes = new Map<string, OutboxMessage & { kind: 'flush' }>();
  for (const row of rows) {
    if (row.status === 'held') {
      const key = JSON.stringify([row.channel, row.app]);
      const flush = flushes.get(key) ?? {
        kind: 'flush',
        channel: row.channel,
        app: row.app,
        deliveryIds: [],
      };
      flush.deliveryIds.push(row.id);
      flushes.set(key, flush);
    } else if (row.groupKey) {
      const group = groups.get(row.groupKey) ?? { kind: 'group', groupKey: row.groupKey, deliveryIds: [] };
      group.deliveryIds.push(row.id);
      groups.set(row.groupKey, group);
    } else {
      singles.push({ kind: 'single', deliveryIds: [row.id] });
    }
  }
  return [...singles, ...groups.values(), ...flushes.values()];
}

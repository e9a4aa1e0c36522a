import { categoryPageSchema } from '../../src/catalog/schemas.js';
import type { CategorySnapshot } from '../../src/market/index.js';
import { snapshotOf } from '../../src/market/index.js';

export const HOUR = 3_600_000;
export const T0 = Date.UTC(2025, 0, 6);

/** A category page as the API sends it, read through the client's schema. */
export function page(entries: Array<Record<string, unknown>>) {
  return categoryPageSchema.parse({ name: 'Store design', apps: entries });
}

export interface SnapOptions {
  sponsored?: string[];
  ratings?: Record<string, number>;
  badges?: Record<string, boolean>;
  names?: Record<string, string>;
}

/** A one-page snapshot with `order` as the organic order and `sponsored` above it. */
export function snap(at: number, order: readonly string[], options: SnapOptions = {}): CategorySnapshot {
  const entry = (handle: string, isSponsored: boolean) => ({
    name: options.names?.[handle] ?? handle.toUpperCase(),
    handle,
    url: `https://apps.example/${handle}`,
    developer: 'Dev',
    rating: options.ratings?.[handle] ?? 4.5,
    isSponsored,
    isBuiltForPlatform: options.badges?.[handle] ?? false,
  });
  const entries = [
    ...(options.sponsored ?? []).map((h) => entry(h, true)),
    ...order.map((h) => entry(h, false)),
  ];
  return snapshotOf('store-design', [page(entries.map((e, i) => ({ ...e, position: i + 1 })))], at);
}

/** Handles a01 … aNN. */
export function apps(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `a${String(i + 1).padStart(2, '0')}`);
}

/** `order` with `handle` moved to 1-based `rank`. */
export function moveTo(order: readonly string[], handle: string, rank: number): string[] {
  const rest = order.filter((h) => h !== handle);
  rest.splice(rank - 1, 0, handle);
  return rest;
}

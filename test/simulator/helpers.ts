import type { Simulator, WireReview } from '../../src/simulator/index.js';

export const API = '/v1/scrape/platform';

export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

/** GET an API path with a key (unless `key` is null) and read the whole answer. */
// biome-ignore lint/suspicious/noExplicitAny: tests probe bodies of every shape, including broken ones
export async function get<T = any>(
  sim: Simulator,
  path: string,
  key: string | null = 'test-key',
): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (key !== null) headers['x-api-key'] = key;
  const res = await fetch(`${sim.url}${path}`, { headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: json as T };
}

export interface ReviewsPage {
  success: true;
  data: {
    reviews: WireReview[];
    summary: Array<{ label: string; count: number | null }>;
    pagination: { hasNextPage: boolean; totalPages: number; currentPage: number };
  };
}

export async function reviewsPage(
  sim: Simulator,
  handle: string,
  query = 'sortBy=newest',
): Promise<ReviewsPage> {
  const res = await get<ReviewsPage>(sim, `${API}/app/${handle}/reviews?${query}`);
  if (res.status !== 200) throw new Error(`reviews of ${handle}: ${res.status} ${res.text}`);
  return res.json;
}

/** A control call over HTTP. */
// biome-ignore lint/suspicious/noExplicitAny: tests probe bodies of every shape
export async function control<T = any>(
  sim: Simulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: T }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'content-type': 'application/json' };
  }
  const res = await fetch(`${sim.url}/__sim${path}`, init);
  return { status: res.status, json: (await res.json()) as T };
}

export const ids = (reviews: Array<{ review_id: string }>): string[] => reviews.map((r) => r.review_id);

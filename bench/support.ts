/**
 * Shared pieces of the alert benchmarks (crash.ts, latency.ts): a fake Slack webhook that records when
 * each message arrived, a seeded random source, percentiles, and where results go.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { Rng } from '../src/simulator/random.js';

export interface WebhookMessage {
  /** Wall clock (Date.now) when the whole body had arrived, before the answer went back. */
  at: number;
  /** The same moment on this process's monotonic clock (performance.now). */
  t: number;
  body: unknown;
  /** Every `pattern` match in the body, once each. */
  markers: string[];
}

export interface WebhookRecorder {
  url: string;
  messages: WebhookMessage[];
  /** Resolves with the first message carrying `marker` (at once if it already arrived). */
  waitFor(marker: string, timeoutMs: number): Promise<WebhookMessage>;
  close(): Promise<void>;
}

/**
 * A real HTTP server standing in for a Slack incoming webhook (as test/helpers/slack.ts): answers every
 * POST 200 "ok" (after `answerAfterMs`, if set) and records it, with the markers found in its body.
 */
export async function startWebhookRecorder(
  pattern: RegExp,
  options: { answerAfterMs?: number } = {},
): Promise<WebhookRecorder> {
  const messages: WebhookMessage[] = [];
  const waiters = new Map<string, Array<(message: WebhookMessage) => void>>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      const t = performance.now();
      const at = Date.now();
      let body: unknown = raw;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        // Kept as text: a body that is not JSON is still a message.
      }
      const global = new RegExp(
        pattern.source,
        pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`,
      );
      const markers = [...new Set(raw.match(global) ?? [])];
      const message = { at, t, body, markers };
      messages.push(message);
      const answer = () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      };
      // A slow Slack: the message is in (recorded) well before the sender hears so.
      if (options.answerAfterMs) setTimeout(answer, options.answerAfterMs);
      else answer();
      for (const marker of markers) {
        for (const resolve of waiters.get(marker) ?? []) resolve(message);
        waiters.delete(marker);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T000/B000/bench-token`,
    messages,
    waitFor(marker, timeoutMs) {
      const seen = messages.find((m) => m.markers.includes(marker));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no webhook message carrying ${marker} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const list = waiters.get(marker) ?? [];
        list.push((message) => {
          clearTimeout(timer);
          resolve(message);
        });
        waiters.set(marker, list);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** A seeded generator (the simulator's mulberry32), so a run can be repeated with `--seed`. */
export function seededRandom(seed: number): { next(): number; int(min: number, max: number): number } {
  return new Rng(seed);
}

/** Nearest-rank percentile of already sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export interface Stats {
  n: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
}

export function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50), 1),
    p95: round(percentile(sorted, 95), 1),
    max: round(sorted.at(-1) ?? Number.NaN, 1),
    mean: round(mean, 1),
  };
}

export function round(n: number, digits: number): number {
  return Math.round(n * 10 ** digits) / 10 ** digits;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Writes `bench/results/<name>-<timestamp>.<ext>` (git-ignored) and returns its path. */
export function writeResult(name: string, stamp: number, content: string, ext = 'json'): string {
  mkdirSync('bench/results', { recursive: true });
  const path = `bench/results/${name}-${stamp}.${ext}`;
  writeFileSync(path, content);
  return path;
}

/** `"${NAME}"` as the config's environment reference (spelled so no linter takes it for a template). */
export function envRef(name: string): string {
  return `"${'$'}{${name}}"`;
}

/**
 * The config file of the alert benchmarks (crash.ts, latency.ts): every app notifies one Slack channel
 * and grouping, incidents and the throttle stay out of the way, so each low review is one message. The
 * API and webhook come from the environment, as `reviewwatch start` reads them.
 */
export function alertBenchConfig(
  handles: string[],
  options: { maxRequestsPerSecond: number; poll: Record<string, string>; dailyRequestBudget?: number },
): string {
  return `catalog:
  baseUrl: ${envRef('CATALOG_API_BASE_URL')}
  apiKey: ${envRef('CATALOG_API_KEY')}
  maxRequestsPerSecond: ${options.maxRequestsPerSecond}
${options.dailyRequestBudget === undefined ? '' : `  dailyRequestBudget: ${options.dailyRequestBudget}\n`}poll:
${Object.entries(options.poll)
  .map(([key, value]) => `  ${key}: ${value}`)
  .join('\n')}
apps:
${handles.map((h) => `  - handle: ${h}\n    notify: [support]`).join('\n')}
alerts:
  lowRating: { maxRating: 3 }
  ratingDrop: { minDrop: 5, displayed: false }
  incident: { count: 1000 }
  groupAbove: 1000
  throttle: { max: 10000 }
channels:
  support: { type: slack, webhookUrl: ${envRef('SLACK_WEBHOOK_URL')} }
`;
}

/** The simulator in a process of its own, so it does not share the event loop being measured. */
export async function startSimulatorProcess(apps: number): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'simulate', '--port', String(port), '--apps', String(apps)],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LOG_FORMAT: 'json' } },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/__sim/stats`)).ok) return { url, child };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('simulator did not start');
}

/** A `/__sim` control call. */
export async function control(url: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${url}/__sim${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`simulator control ${path}: HTTP ${response.status}`);
  return response.json();
}

import type { Redis } from 'ioredis';
import { type Config, parseConfig } from '../../src/config/index.js';
import { Metrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { adminCredentials } from '../../src/settings.js';
import type { Store } from '../../src/store/db.js';
import type { LoginLimits } from '../../src/web/login-throttle.js';
import { createWeb } from '../../src/web/router.js';
import { captureLog } from './index.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export function inboxConfig(web: Record<string, unknown> = {}): Config {
  return parseConfig(
    {
      catalog: { simulator: true },
      apps: [
        { handle: 'shop', name: 'Shop' },
        { handle: 'rival', role: 'competitor' },
      ],
      web,
    },
    {},
  );
}

export interface WebServer {
  url: string;
  server: OpsServer;
  log: ReturnType<typeof captureLog>;
  /** Moves the clock sessions and the login throttle read. */
  advance(ms: number): void;
}

/** The real ops server with the inbox mounted, as the worker runs it. */
export async function startWebServer(options: {
  store: Store;
  redis: Redis;
  config?: Config;
  env?: Record<string, string>;
  loginLimits?: LoginLimits;
  /** How often pages poll `/api/live`; the browser tests shorten it. */
  livePollMs?: number;
}): Promise<WebServer> {
  const log = captureLog();
  let offset = 0;
  const config = options.config ?? inboxConfig();
  const admin = adminCredentials(options.env ?? { REVIEWWATCH_ADMIN_TOKEN: ADMIN_TOKEN });
  const web = createWeb({
    store: options.store,
    config,
    admin,
    logger: log.logger,
    now: () => new Date(Date.now() + offset),
    ...(options.loginLimits ? { loginLimits: options.loginLimits } : {}),
    ...(options.livePollMs ? { livePollMs: options.livePollMs } : {}),
  });
  const server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    deps: { redis: options.redis, store: options.store, queues: [], metrics: new Metrics(), web },
    admin,
    logger: log.logger,
  });
  return {
    url: server.url,
    server,
    log,
    advance: (ms) => {
      offset += ms;
    },
  };
}

/** A browser's cookie jar over fetch, following no redirects, so each answer can be checked. */
export class Browser {
  readonly #base: string;
  readonly cookies = new Map<string, string>();
  /** Headers every request sends (e.g. Sec-Fetch-Site, as a browser would). */
  readonly headers: Record<string, string> = {};

  constructor(base: string) {
    this.#base = base;
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.headers)) if (!headers.has(k)) headers.set(k, v);
    if (this.cookies.size > 0 && !headers.has('cookie')) {
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    const res = await fetch(`${this.#base}${path}`, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq);
      const value = (pair ?? '').slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.request(path, { headers });
  }

  /** A form post, as the browser sends it. */
  post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** Logs in through the form; returns the final answer to the form post. */
  async login(name: string, password: string, next?: string): Promise<Response> {
    const form = await (await this.get(`/login${next ? `?next=${encodeURIComponent(next)}` : ''}`)).text();
    return this.post('/login', {
      _csrf: hiddenField(form, '_csrf'),
      next: hiddenField(form, 'next'),
      name,
      password,
    });
  }
}

/** The value of a hidden input of a page. */
export function hiddenField(page: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(page);
  if (!match) throw new Error(`no hidden field ${name}`);
  return (match[1] ?? '')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');
}

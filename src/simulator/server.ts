/**
 * HTTP face of the simulator: the seven Catalog Read API endpoints plus `/__sim` control routes.
 *
 * API requests go through, in order: latency, API key (missing -> 401, wrong -> 403), credits (402),
 * queued failures (failNext), routing (unknown path 404, method other than GET 405), the payload (unknown
 * or delisted handle 404, bad page/sortBy 400), then queued malformations (success responses only).
 *
 * Control routes need no API key, are not counted in stats, and speak JSON both ways. Bad input -> 400
 * `{error, message}`, unknown app or review -> 404, unknown route -> 404, wrong method -> 405.
 *   GET    /__sim/handles                              -> {handles}
 *   POST   /__sim/apps                                 {handle, reviewCount?, title?, developer?} -> 201 {handle}
 *   GET    /__sim/apps/:handle/reviews                 -> {reviews} (visible, newest first, no quirks)
 *   POST   /__sim/apps/:handle/reviews                 count | [partial review, ...] | {count} | {reviews}
 *                                                      -> 201 {reviews} (created, newest first)
 *   PATCH  /__sim/apps/:handle/reviews/:id             {rating?, content?} -> {review}
 *   POST   /__sim/apps/:handle/reviews/:id/archive     -> {ok}
 *   POST   /__sim/apps/:handle/reviews/:id/restore     -> {ok}
 *   PUT    /__sim/apps/:handle/summary                 [{label, count}] | {entries} | null -> {ok}
 *   POST   /__sim/apps/:handle/delist                  -> {ok}
 *   POST   /__sim/apps/:handle/relist                  -> {ok}
 *   POST   /__sim/fail                                 {count?=1, status, retryAfterSec?, pathIncludes?, body?}
 *   POST   /__sim/malform                              {count?=1, pathIncludes?, kind?}
 *   POST   /__sim/latency                              {ms}
 *   GET    /__sim/quirks, POST /__sim/quirks           {emptyIds?, invalidDates?, ...} -> {quirks}
 *   GET    /__sim/credits, POST /__sim/credits         {credits: number | null} -> {credits}
 *   GET    /__sim/stats, POST /__sim/stats/reset
 *   POST   /__sim/arrive                               -> {review} (one arrival now, as the timer would)
 *   GET    /__sim/market                               -> {tick, events}
 *   POST   /__sim/market/advance                       {ticks} -> {tick} (6 h of ranks a tick)
 *   POST   /__sim/market/events                        [event, ...] | {events} -> {events} (market.ts)
 *   POST   /__sim/reset
 */
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { badRequest, SimulatorError } from './errors.js';
import type { SimulatorState } from './state.js';
import type { Endpoint, FailSpec, MalformKind, Quirks, SummaryEntry } from './types.js';
import {
  appData,
  appsData,
  categoriesData,
  categoryData,
  developerData,
  developersData,
  parsePage,
  reviewsData,
  withBadField,
} from './views.js';

const API_PREFIX = '/v1/scrape/platform/';
const MAX_CONTROL_BODY = 5 * 1024 * 1024;

type Json = Record<string, unknown>;

interface Route {
  endpoint: Endpoint;
  handle: string;
}

function decodeSegment(segment: string): string | undefined {
  try {
    const value = decodeURIComponent(segment);
    return value === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

function matchApiRoute(path: string): Route | undefined {
  if (!path.startsWith(API_PREFIX)) return undefined;
  const parts = path.slice(API_PREFIX.length).split('/');
  const [first, second, third] = parts;
  if (parts.length === 1) {
    if (first === 'categories' || first === 'developers' || first === 'apps')
      return { endpoint: first, handle: '' };
    return undefined;
  }
  const handle = second === undefined ? undefined : decodeSegment(second);
  if (handle === undefined) return undefined;
  if (parts.length === 2) {
    if (first === 'app') return { endpoint: 'app', handle };
    if (first === 'category') return { endpoint: 'category', handle };
    if (first === 'developer') return { endpoint: 'developer', handle };
    return undefined;
  }
  if (parts.length === 3 && first === 'app' && third === 'reviews') return { endpoint: 'reviews', handle };
  return undefined;
}

function errorBody(status: number, message: string): string {
  return JSON.stringify({ error: STATUS_CODES[status] ?? 'Error', message });
}

function send(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

const DEFAULT_FAULT_MESSAGES: Record<number, string> = {
  429: 'Rate limit exceeded. Retry later with exponential backoff.',
  500: 'The server hit an unexpected error.',
  502: 'Upstream marketplace page could not be fetched.',
  503: 'Service temporarily unavailable.',
  504: 'Upstream marketplace page timed out.',
};

// ---------------------------------------------------------------------------------------------------------
// API

function payload(state: SimulatorState, route: Route, params: URLSearchParams | undefined): Json {
  switch (route.endpoint) {
    case 'reviews':
      return reviewsData(
        state,
        route.handle,
        parsePage(params?.get('page') ?? null),
        params?.get('sortBy') ?? null,
      );
    case 'category':
      return categoryData(state, route.handle, parsePage(params?.get('page') ?? null));
    case 'app':
      return appData(state, route.handle);
    case 'developer':
      return developerData(state, route.handle);
    case 'categories':
      return categoriesData();
    case 'developers':
      return developersData(state);
    case 'apps':
      return appsData(state);
  }
}

function envelope(state: SimulatorState, data: Json): string {
  return JSON.stringify(
    state.quirkFlags.extraFields
      ? { success: true, data, meta: { cached: false, creditsUsed: 1 } }
      : { success: true, data },
  );
}

/**
 * Key under which this request's success body may be cached, or undefined when it may not: category and
 * developer pages mix many apps' ratings, and extra fields carry a timestamp.
 */
function cacheKey(
  state: SimulatorState,
  route: Route,
  params: URLSearchParams | undefined,
): string | undefined {
  if (state.quirkFlags.extraFields) return undefined;
  switch (route.endpoint) {
    case 'categories':
    case 'developers':
    case 'apps':
      return route.endpoint;
    case 'reviews':
    case 'app': {
      const rec = state.listedApp(route.handle);
      if (rec === undefined) return undefined;
      // An app's detail changes with the market script: the events it has seen are part of its key.
      const query =
        route.endpoint === 'reviews'
          ? `${params?.get('page') ?? '1'}\u0000${params?.get('sortBy')}`
          : String(state.eventsOf(route.handle, state.marketTick()).length);
      return `${route.endpoint}\u0000${route.handle}\u0000${rec.version}\u0000${query}`;
    }
    default:
      return undefined;
  }
}

interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const reply = (status: number, body: string, headers?: Record<string, string>): Reply =>
  headers === undefined ? { status, body } : { status, body, headers };

function failure(status: number, message: string): Reply {
  return reply(status, errorBody(status, message));
}

/** The answer to one API request; `target` is the path with its query string. */
function answerApi(
  state: SimulatorState,
  method: string | undefined,
  key: string | string[] | undefined,
  target: string,
  route: Route | undefined,
): Reply {
  if (typeof key !== 'string' || key === '') {
    return failure(401, 'Missing API key: send it in the x-api-key header.');
  }
  if (state.apiKey !== undefined && key !== state.apiKey) return failure(403, 'Invalid API key.');
  if (!state.consumeCredit()) {
    return failure(402, 'You are out of credits. Top up your plan to keep using the API.');
  }

  const fault = state.faults.takeFail(target);
  if (fault !== undefined) {
    const headers: Record<string, string> = {};
    if (fault.retryAfterSec !== undefined) headers['retry-after'] = String(Math.ceil(fault.retryAfterSec));
    if (fault.body === undefined) {
      return reply(
        fault.status,
        errorBody(fault.status, DEFAULT_FAULT_MESSAGES[fault.status] ?? 'Simulated failure.'),
        headers,
      );
    }
    return reply(
      fault.status,
      typeof fault.body === 'string' ? fault.body : JSON.stringify(fault.body),
      headers,
    );
  }

  const q = target.indexOf('?');
  if (route === undefined) return failure(404, `No such endpoint: ${q < 0 ? target : target.slice(0, q)}`);
  if (method !== 'GET')
    return reply(405, errorBody(405, `${method} is not allowed; use GET.`), { allow: 'GET' });

  const params = q < 0 ? undefined : new URLSearchParams(target.slice(q + 1));
  const cached = cacheKey(state, route, params);
  let data: Json | undefined;
  let body = cached === undefined ? undefined : state.bodyCache.get(cached);
  try {
    if (body === undefined) {
      data = payload(state, route, params);
      body = envelope(state, data);
      if (cached !== undefined) state.bodyCache.set(cached, body);
    }
  } catch (err) {
    if (err instanceof SimulatorError) return failure(err.status, err.message);
    return failure(500, `Simulator bug: ${err instanceof Error ? err.message : String(err)}`);
  }

  const kind: MalformKind | undefined = state.faults.takeMalform(target);
  if (kind === 'no-envelope') return reply(200, '{"foo":1}');
  if (kind === 'not-json') return reply(200, body.slice(0, Math.max(1, Math.floor(body.length / 2))));
  if (kind === 'bad-field') {
    data ??= payload(state, route, params);
    return reply(200, envelope(state, withBadField(route.endpoint, data)));
  }
  return reply(200, body);
}

function handleApi(state: SimulatorState, req: IncomingMessage, res: ServerResponse, target: string): void {
  const q = target.indexOf('?');
  const route = matchApiRoute(q < 0 ? target : target.slice(0, q));
  const r = answerApi(state, req.method, req.headers['x-api-key'], target, route);
  state.recordRequest(route?.endpoint, r.status);
  send(res, r.status, r.body, r.headers);
}

// ---------------------------------------------------------------------------------------------------------
// Controls

interface ControlRoute {
  method: string;
  pattern: string[];
  status?: number;
  run(state: SimulatorState, params: Record<string, string>, body: unknown): unknown;
}

function asObject(body: unknown, what: string): Json {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`${what}: body must be a JSON object`);
  }
  return body as Json;
}

function countOf(body: Json): number {
  return body.count === undefined ? 1 : (body.count as number);
}

const OK = { ok: true };

const CONTROL_ROUTES: ControlRoute[] = [
  { method: 'GET', pattern: ['handles'], run: (s) => ({ handles: s.handles() }) },
  {
    method: 'POST',
    pattern: ['apps'],
    status: 201,
    run: (s, _p, body) => {
      const b = asObject(body, 'POST /__sim/apps');
      s.addApp(b.handle as string, {
        reviewCount: b.reviewCount as number,
        title: b.title as string,
        developer: b.developer as string,
      });
      return { handle: b.handle };
    },
  },
  {
    method: 'GET',
    pattern: ['apps', ':handle', 'reviews'],
    run: (s, p) => ({ reviews: s.reviews(p.handle as string) }),
  },
  {
    method: 'POST',
    pattern: ['apps', ':handle', 'reviews'],
    status: 201,
    run: (s, p, body) => {
      let input: unknown = body;
      if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
        const b = body as Json;
        input = b.reviews ?? b.count;
      }
      if (typeof input !== 'number' && !Array.isArray(input)) {
        throw badRequest('body must be a count, an array of review fields, {count} or {reviews}');
      }
      return { reviews: s.addReviews(p.handle as string, input) };
    },
  },
  {
    method: 'PATCH',
    pattern: ['apps', ':handle', 'reviews', ':id'],
    run: (s, p, body) => {
      const b = asObject(body, 'PATCH review');
      return {
        review: s.editReview(p.handle as string, p.id as string, {
          rating: b.rating as number,
          content: b.content as string,
        }),
      };
    },
  },
  {
    method: 'POST',
    pattern: ['apps', ':handle', 'reviews', ':id', 'archive'],
    run: (s, p) => {
      s.archiveReview(p.handle as string, p.id as string);
      return OK;
    },
  },
  {
    method: 'POST',
    pattern: ['apps', ':handle', 'reviews', ':id', 'restore'],
    run: (s, p) => {
      s.restoreReview(p.handle as string, p.id as string);
      return OK;
    },
  },
  {
    method: 'PUT',
    pattern: ['apps', ':handle', 'summary'],
    run: (s, p, body) => {
      const entries =
        typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Json).entries : body;
      s.setSummary(p.handle as string, (entries ?? null) as SummaryEntry[] | null);
      return OK;
    },
  },
  {
    method: 'POST',
    pattern: ['apps', ':handle', 'delist'],
    run: (s, p) => {
      s.delist(p.handle as string);
      return OK;
    },
  },
  {
    method: 'POST',
    pattern: ['apps', ':handle', 'relist'],
    run: (s, p) => {
      s.relist(p.handle as string);
      return OK;
    },
  },
  {
    method: 'POST',
    pattern: ['fail'],
    run: (s, _p, body) => {
      const b = asObject(body, 'POST /__sim/fail');
      s.failNext(countOf(b), b as unknown as FailSpec);
      return OK;
    },
  },
  {
    method: 'POST',
    pattern: ['malform'],
    run: (s, _p, body) => {
      const b = asObject(body ?? {}, 'POST /__sim/malform');
      s.malformNext(countOf(b), b);
      return OK;
    },
  },
  {
    method: 'POST',
    pattern: ['latency'],
    run: (s, _p, body) => {
      s.setLatency(asObject(body, 'POST /__sim/latency').ms as number);
      return { ms: s.latencyMs };
    },
  },
  { method: 'GET', pattern: ['quirks'], run: (s) => ({ quirks: s.quirks() }) },
  {
    method: 'POST',
    pattern: ['quirks'],
    run: (s, _p, body) => {
      s.setQuirks(asObject(body, 'POST /__sim/quirks') as Partial<Quirks>);
      return { quirks: s.quirks() };
    },
  },
  { method: 'GET', pattern: ['credits'], run: (s) => ({ credits: s.credits() ?? null }) },
  {
    method: 'POST',
    pattern: ['credits'],
    run: (s, _p, body) => {
      const credits = asObject(body, 'POST /__sim/credits').credits;
      s.setCredits(credits === null ? undefined : (credits as number));
      return { credits: s.credits() ?? null };
    },
  },
  { method: 'GET', pattern: ['stats'], run: (s) => s.stats() },
  {
    method: 'POST',
    pattern: ['stats', 'reset'],
    run: (s) => {
      s.resetStats();
      return OK;
    },
  },
  { method: 'POST', pattern: ['arrive'], run: (s) => ({ review: s.arrive() ?? null }) },
  { method: 'GET', pattern: ['market'], run: (s) => ({ tick: s.marketTick(), events: s.marketScript() }) },
  {
    method: 'POST',
    pattern: ['market', 'advance'],
    run: (s, _p, body) => ({
      tick: s.advanceMarket(asObject(body, 'POST /__sim/market/advance').ticks as number),
    }),
  },
  {
    method: 'POST',
    pattern: ['market', 'events'],
    run: (s, _p, body) => {
      const events = Array.isArray(body) ? body : asObject(body, 'POST /__sim/market/events').events;
      s.addMarketEvents(events);
      return { events: s.marketScript() };
    },
  },
  {
    method: 'POST',
    pattern: ['reset'],
    run: (s) => {
      s.reset();
      return OK;
    },
  },
];

function matchPattern(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const s = segments[i] as string;
    if (p.startsWith(':')) params[p.slice(1)] = s;
    else if (p !== s) return undefined;
  }
  return params;
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_CONTROL_BODY) {
        reject(new SimulatorError(413, 'control body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (text === '') return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(badRequest('body is not valid JSON'));
      }
    });
  });
}

async function handleControl(
  state: SimulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const json = (status: number, value: unknown): void => send(res, status, JSON.stringify(value));
  try {
    const segments = path
      .split('/')
      .slice(2)
      .map((s) => decodeSegment(s) ?? '');
    let wrongMethod = false;
    for (const route of CONTROL_ROUTES) {
      const params = matchPattern(route.pattern, segments);
      if (params === undefined) continue;
      if (route.method !== req.method) {
        wrongMethod = true;
        continue;
      }
      const body = req.method === 'GET' ? undefined : await readBody(req);
      json(route.status ?? 200, route.run(state, params, body));
      return;
    }
    if (wrongMethod) {
      json(405, { error: 'Method Not Allowed', message: `${req.method} is not allowed on ${path}` });
    } else {
      json(404, { error: 'Not Found', message: `No simulator control at ${path}` });
    }
  } catch (err) {
    const status = err instanceof SimulatorError ? err.status : 500;
    json(status, {
      error: STATUS_CODES[status] ?? 'Error',
      message: err instanceof Error ? err.message : String(err),
    });
  }
}

// ---------------------------------------------------------------------------------------------------------

export interface SimulatorServer {
  server: Server;
  /** Stops listening, drops keep-alive sockets and pending delayed responses. */
  close(): Promise<void>;
}

export function createSimulatorServer(state: SimulatorState): SimulatorServer {
  const delayed = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const target = req.url ?? '/';
    if (target === '/__sim' || target.startsWith('/__sim/') || target.startsWith('/__sim?')) {
      const q = target.indexOf('?');
      void handleControl(state, req, res, q < 0 ? target : target.slice(0, q));
      return;
    }
    const latency = state.latencyMs;
    if (latency <= 0) return handleApi(state, req, res, target);
    const timer = setTimeout(() => {
      delayed.delete(timer);
      handleApi(state, req, res, target);
    }, latency);
    delayed.add(timer);
  });
  // A keep-alive client that outlives a test must not keep the process up through this server.
  server.keepAliveTimeout = 5_000;

  let closing: Promise<void> | undefined;
  return {
    server,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        for (const t of delayed) clearTimeout(t);
        delayed.clear();
        if (!server.listening) return resolve();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

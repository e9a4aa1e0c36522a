import { Agent, type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import { errorMessage, formatPath } from '../errors.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { parseRetryAfter } from '../util/http.js';
import {
  CatalogAuthError,
  CatalogCreditsError,
  CatalogNotFoundError,
  CatalogRateLimitError,
  CatalogRequestError,
  CatalogResponseError,
  CatalogUnavailableError,
  type HandleKind,
  InvalidHandleError,
} from './errors.js';
import { isValidHandle } from './handle.js';
import {
  type AppDetail,
  type AppList,
  appDetailSchema,
  appListSchema,
  type CategoryPage,
  categoryPageSchema,
  type DeveloperDetail,
  developerDetailSchema,
  envelopeSchema,
  errorBodySchema,
  type ReviewsPage,
  reviewsPageSchema,
  type UrlList,
  urlListSchema,
} from './schemas.js';

const PREFIX = '/v1/scrape/platform';

/** Waits until a request may be sent; shared across processes to enforce `maxRequestsPerSecond`. */
export interface RequestGate {
  acquire(): Promise<void>;
}

/** One answered (or failed) request, for metrics. `endpoint` holds the handle; `kind` does not. */
export interface CatalogResponseInfo {
  endpoint: string;
  /** reviews, app, category, developer, categories, developers or apps. */
  kind: string;
  /** The HTTP status, or 'error' when no answer came (network error, timeout). */
  status: number | 'error';
  ms: number;
}

export interface CatalogClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
  gate?: RequestGate;
  logger?: Logger;
  /** Called after every request; must not throw (a throw is logged and ignored). */
  onResponse?: (info: CatalogResponseInfo) => void;
}

export type SortBy = 'newest' | 'relevance';

/**
 * The Catalog Read API: seven GET endpoints, each validated at runtime. Errors are typed (see errors.ts)
 * and never carry the API key.
 */
export class CatalogClient {
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #gate: RequestGate | undefined;
  readonly #logger: Logger;
  readonly #onResponse: ((info: CatalogResponseInfo) => void) | undefined;
  /**
   * undici's own request() over a keep-alive pool, not fetch(): fetch's WHATWG streams and objects cost
   * three times the CPU per request (bench/README.md), and a poller is mostly requests. Unlike fetch()
   * it follows no redirect (the API documents none; a 3xx is a CatalogRequestError rather than the key
   * sent on to another host) and asks for no compression.
   */
  readonly #agent: Agent;

  constructor(options: CatalogClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#gate = options.gate;
    this.#logger = options.logger ?? silentLogger;
    this.#onResponse = options.onResponse;
    this.#agent = new Agent();
  }

  /** Closes the kept-alive connections; requests in flight finish first. */
  async close(): Promise<void> {
    await this.#agent.close();
  }

  async reviews(handle: string, options: { page?: number; sortBy?: SortBy } = {}): Promise<ReviewsPage> {
    const query = { page: String(options.page ?? 1), sortBy: options.sortBy ?? 'newest' };
    return this.#get(`/app/${checkHandle(handle)}/reviews`, reviewsPageSchema, {
      query,
      handle,
      kind: 'reviews',
    });
  }

  async app(handle: string): Promise<AppDetail> {
    return this.#get(`/app/${checkHandle(handle)}`, appDetailSchema, { handle, kind: 'app', names: 'app' });
  }

  async category(handle: string, options: { page?: number; sortBy?: string } = {}): Promise<CategoryPage> {
    const query: Record<string, string> = { page: String(options.page ?? 1) };
    if (options.sortBy) query.sortBy = options.sortBy;
    return this.#get(`/category/${checkHandle(handle)}`, categoryPageSchema, {
      query,
      handle,
      kind: 'category',
      names: 'category',
    });
  }

  async developer(handle: string): Promise<DeveloperDetail> {
    return this.#get(`/developer/${checkHandle(handle)}`, developerDetailSchema, {
      handle,
      kind: 'developer',
      names: 'developer',
    });
  }

  async categories(): Promise<UrlList> {
    return this.#get('/categories', urlListSchema, { kind: 'categories' });
  }

  async developers(): Promise<UrlList> {
    return this.#get('/developers', urlListSchema, { kind: 'developers' });
  }

  async apps(): Promise<AppList> {
    return this.#get('/apps', appListSchema, { kind: 'apps' });
  }

  async #get<S extends z.ZodType>(
    path: string,
    schema: S,
    options: { query?: Record<string, string>; handle?: string; kind: string; names?: HandleKind },
  ): Promise<z.output<S>> {
    const search = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
    const endpoint = `GET ${PREFIX}${path}${search}`;
    await this.#gate?.acquire();
    const started = performance.now();
    let response: Dispatcher.ResponseData;
    let body: string;
    try {
      response = await request(`${this.#baseUrl}${PREFIX}${path}${search}`, {
        dispatcher: this.#agent,
        headers: { 'x-api-key': this.#apiKey, accept: 'application/json' },
        // A deadline for the whole exchange: undici's own timeouts tick too coarsely for short ones.
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      body = await response.body.text();
    } catch (err) {
      this.#report(endpoint, options.kind, 'error', started);
      throw new CatalogUnavailableError(endpoint, this.#describeFailure(err), { cause: err });
    }
    const status = response.statusCode;
    const ms = this.#report(endpoint, options.kind, status, started);
    this.#logger.debug({ endpoint, status, ms }, 'catalog request');
    if (status < 200 || status > 299)
      throw errorFor(endpoint, status, response.headers, body, options.handle, options.names ?? 'app');
    return parseBody(endpoint, body, schema);
  }

  #describeFailure(err: unknown): string {
    if (err instanceof DOMException && err.name === 'TimeoutError')
      return `no answer within ${this.#timeoutMs} ms`;
    const code = networkErrorCode(err);
    if (code !== undefined) return `network error (${code})`;
    return `network error (${errorMessage(err)})`;
  }

  /** Tells `onResponse`; a broken observer must not fail the request it observes. */
  #report(endpoint: string, kind: string, status: number | 'error', started: number): number {
    const ms = Math.round(performance.now() - started);
    try {
      this.#onResponse?.({ endpoint, kind, status, ms });
    } catch (err) {
      this.#logger.warn({ err: errorMessage(err) }, 'catalog onResponse hook failed');
    }
    return ms;
  }
}

function checkHandle(handle: string): string {
  if (!isValidHandle(handle)) throw new InvalidHandleError(handle);
  return handle;
}

function networkErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The API's own `{error, message}`, shortened, for context in our messages. */
function detailOf(body: string): string {
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(body));
    if (!parsed.success) return '';
    const text = [parsed.data.error, parsed.data.message].filter(Boolean).join(': ');
    return text ? `, "${text.slice(0, 160)}"` : '';
  } catch {
    return '';
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function errorFor(
  endpoint: string,
  status: number,
  headers: Dispatcher.ResponseData['headers'],
  body: string,
  handle: string | undefined,
  names: HandleKind,
): Error {
  const detail = detailOf(body);
  if (status === 401 || status === 403) return new CatalogAuthError(endpoint, status, detail);
  if (status === 402) return new CatalogCreditsError(endpoint, detail);
  if (status === 404 && handle !== undefined)
    return new CatalogNotFoundError(endpoint, handle, detail, names);
  if (status === 429)
    return new CatalogRateLimitError(endpoint, parseRetryAfter(headerValue(headers['retry-after'])));
  if (status >= 500 || status === 408)
    return new CatalogUnavailableError(endpoint, `HTTP ${status}${detail}`, { status });
  return new CatalogRequestError(endpoint, status, detail);
}

function parseBody<S extends z.ZodType>(endpoint: string, body: string, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new CatalogResponseError(endpoint, '(body)', `not JSON (${body.length} bytes)`);
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) {
    throw new CatalogResponseError(endpoint, '(body)', 'expected { success: true, data }');
  }
  const data = schema.safeParse(envelope.data.data);
  if (!data.success) {
    const issue = data.error.issues[0];
    const path = ['data', ...(issue?.path ?? [])];
    throw new CatalogResponseError(endpoint, formatPath(path), issue?.message ?? 'invalid');
  }
  return data.data;
}

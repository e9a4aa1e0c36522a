import { ExitCode, ReviewwatchError } from '../errors.js';

/**
 * Errors of the Catalog API client. `retryable` says whether trying the same request later can succeed;
 * the queue uses it to choose between a retry with backoff and failing the job for good. `fatal` says
 * whether no request can succeed until someone acts (a rejected key, no credits): polling any other app
 * is pointless too, so the worker pauses polling.
 */
export abstract class CatalogError extends ReviewwatchError {
  abstract readonly retryable: boolean;
  abstract readonly fatal: boolean;
  /** Method and path of the request, never the key or the base URL. */
  readonly endpoint: string;
  readonly status: number | undefined;

  constructor(
    endpoint: string,
    message: string,
    options: { status?: number; cause?: unknown; exitCode?: number } = {},
  ) {
    super(message, options);
    this.endpoint = endpoint;
    this.status = options.status;
  }
}

/** 401/403: the key is missing, wrong or revoked. Retrying cannot help. */
export class CatalogAuthError extends CatalogError {
  readonly retryable = false;
  readonly fatal = true;
  constructor(endpoint: string, status: number, detail: string) {
    super(
      endpoint,
      `Catalog API rejected the API key (HTTP ${status}${detail}) on ${endpoint}: check CATALOG_API_KEY; polling stops until it is fixed.`,
      { status, exitCode: ExitCode.Unavailable },
    );
  }
}

/** 402: the account has no credits left. */
export class CatalogCreditsError extends CatalogError {
  readonly retryable = false;
  readonly fatal = true;
  constructor(endpoint: string, detail: string) {
    super(
      endpoint,
      `Catalog API account is out of credits (HTTP 402${detail}) on ${endpoint}: add credits in the API dashboard; polling stops until then.`,
      { status: 402, exitCode: ExitCode.Unavailable },
    );
  }
}

/** What a handle names: an app (endpoints 1 and 3), a category (2) or a developer (4). */
export type HandleKind = 'app' | 'category' | 'developer';

/** 404 on a handle: unknown, renamed or delisted. */
export class CatalogNotFoundError extends CatalogError {
  readonly retryable = false;
  readonly fatal = false;
  readonly handle: string;
  readonly kind: HandleKind;
  constructor(endpoint: string, handle: string, detail: string, kind: HandleKind = 'app') {
    const what = kind === 'app' ? `"${handle}"` : `${kind} "${handle}"`;
    const why =
      kind === 'developer' ? 'it may have been renamed or removed' : 'it may have been renamed or delisted';
    super(
      endpoint,
      `${what} is not in the marketplace (HTTP 404${detail}): ${why}; check its handle in the config.`,
      { status: 404 },
    );
    this.handle = handle;
    this.kind = kind;
  }
}

/** 429: slow down. `retryAfterMs` is the server's Retry-After when it sent one. */
export class CatalogRateLimitError extends CatalogError {
  readonly retryable = true;
  readonly fatal = false;
  readonly retryAfterMs: number | undefined;
  constructor(endpoint: string, retryAfterMs: number | undefined) {
    const wait =
      retryAfterMs === undefined ? 'no Retry-After given' : `retry after ${Math.ceil(retryAfterMs / 1000)}s`;
    super(endpoint, `Catalog API rate limit hit (HTTP 429) on ${endpoint}: ${wait}.`, { status: 429 });
    this.retryAfterMs = retryAfterMs;
  }
}

/** 5xx, timeouts and network failures: transient, worth retrying with backoff. */
export class CatalogUnavailableError extends CatalogError {
  readonly retryable = true;
  readonly fatal = false;
  constructor(endpoint: string, what: string, options: { status?: number; cause?: unknown } = {}) {
    super(endpoint, `Catalog API unavailable on ${endpoint}: ${what}; will retry.`, options);
  }
}

/** Any other 4xx: the request itself is wrong. */
export class CatalogRequestError extends CatalogError {
  readonly retryable = false;
  readonly fatal = false;
  constructor(endpoint: string, status: number, detail: string) {
    super(endpoint, `Catalog API refused ${endpoint} (HTTP ${status}${detail}).`, { status });
  }
}

/** A 2xx whose body does not have the shape the spec describes. Nothing from it is stored. */
export class CatalogResponseError extends CatalogError {
  readonly retryable = true;
  readonly fatal = false;
  /** Where in the body the first bad field is, e.g. `data.reviews[3].rating`. */
  readonly path: string;
  constructor(endpoint: string, path: string, problem: string) {
    super(endpoint, `Catalog API sent a malformed body for ${endpoint}: ${path}: ${problem}.`);
    this.path = path;
  }
}

/** Raised before any request for a handle that cannot be a marketplace handle. */
export class InvalidHandleError extends ReviewwatchError {
  constructor(handle: string) {
    super(
      `"${handle}" is not a valid handle: handles are lowercase letters, digits and hyphens (e.g. my-app).`,
      { exitCode: ExitCode.Usage },
    );
  }
}

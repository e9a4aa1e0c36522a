import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Redis } from 'ioredis';
import { ExitCode, errorMessage, ReviewwatchError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { openGaps } from '../store/gaps.js';
import { listUsers } from '../store/users.js';
import { TimeoutError, withTimeout } from '../util/timeout.js';
import { type AdminCredentials, bearerMatches, sameSecret } from '../web/auth.js';
import { refusalOf } from '../web/middleware/errors.js';
import type { Web } from '../web/router.js';
import type { PollingVerdict } from './health.js';
import type { Metrics } from './metrics.js';

export const ADMIN_PATH = '/admin/queues';

/** How long /readyz waits for Redis before calling it down. */
const READY_TIMEOUT_MS = 1_000;

const REALM = 'reviewwatch admin';

const CLOSED_HINT =
  'Bull Board is closed: set REVIEWWATCH_ADMIN_TOKEN (then send "Authorization: Bearer <token>"), or REVIEWWATCH_ADMIN_USER and REVIEWWATCH_ADMIN_PASSWORD (HTTP basic auth), and restart';

/** What a scraper is told when it comes without credentials, and the log when none are configured. */
const METRICS_HINT =
  'send "Authorization: Bearer <REVIEWWATCH_ADMIN_TOKEN>" (Prometheus: authorization.credentials_file in the scrape config), or log in to the inbox';

export interface OpsServerDeps {
  redis: Redis;
  store: Store;
  /** Shown in Bull Board, and their depths exported by /metrics. */
  queues: readonly Queue[];
  metrics: Metrics;
  /**
   * Whether polling is alive: a worker's own watchdog (`start`), or the workers' heartbeats in Redis
   * (`serve`); absent for a server that answers for no polling (the tests' inbox).
   */
  polling?: { verdict(): PollingVerdict | Promise<PollingVerdict> };
  /**
   * The triage inbox (web/router.ts), served at `/` after the endpoints above. With it, Bull Board opens to
   * anyone logged in to the inbox as well as to the admin credentials.
   */
  web?: Web;
}

export interface OpsServerOptions {
  host: string;
  /** 0 picks a free port; `url` says which. */
  port: number;
  deps: OpsServerDeps;
  /** Who may open Bull Board (REVIEWWATCH_ADMIN_*, read by settings.ts); closed when empty. */
  admin: AdminCredentials;
  logger: Logger;
  /** How long /readyz waits for Redis; 1 s by default. */
  readyTimeoutMs?: number;
}

export interface OpsServer {
  /** e.g. http://127.0.0.1:9464 */
  url: string;
  close(): Promise<void>;
}

/**
 * The operations endpoints of `start` and `serve`: /healthz (the process answers) and /readyz (Redis and
 * SQLite answer, and polling is alive) for anyone, probes being unable to log in; /metrics (Prometheus text) and Bull Board at /admin/queues
 * with the same credentials as the inbox (a session or the admin token) or the admin credentials. Also
 * points the metrics' queue depths at `deps.queues` and their burst gaps at the store.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const { deps, logger } = options;
  deps.metrics.watchQueues(deps.queues);
  deps.metrics.watchGaps(() => openGaps(deps.store.db));
  if (options.admin.problem) logger.warn(options.admin.problem);
  const access = options.admin.token || options.admin.basic ? options.admin : undefined;
  const app = createOpsApp(options, access);
  const board = deps.web
    ? 'Bull Board, with a login or credentials'
    : access
      ? 'Bull Board, with credentials'
      : 'Bull Board closed: set REVIEWWATCH_ADMIN_TOKEN or REVIEWWATCH_ADMIN_USER and REVIEWWATCH_ADMIN_PASSWORD to open it';
  const server = createServer(app);
  await listen(server, options.host, options.port);
  server.on('error', (err) => logger.error({ err: err.message }, 'ops server error'));
  const url = urlOf(server.address() as AddressInfo);
  logger.info(
    { url },
    `ops server at ${url}: ${deps.web ? '/ (the inbox), ' : ''}/healthz, /readyz, /metrics (with credentials), ${ADMIN_PATH} (${board})`,
  );
  const noOne = metricsUnreachable(options, access);
  if (noOne) logger.warn(`/metrics answers no one: ${noOne}`);
  if (!isLoopback(options.host)) {
    logger.warn(`ops server listens on ${options.host}: /healthz and /readyz answer anyone who can reach it`);
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive connections (a Prometheus scraper, a browser) would hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function createOpsApp(options: OpsServerOptions, access: AdminCredentials | undefined): express.Express {
  const { deps, logger } = options;
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const app = express();
  app.disable('x-powered-by');

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  let wasReady: boolean | undefined;
  app.get('/readyz', async (_req, res) => {
    const [redis, sqlite, polling] = await Promise.all([
      checkRedis(deps.redis, readyTimeoutMs),
      Promise.resolve().then(() => checkSqlite(deps.store)),
      deps.polling?.verdict(),
    ]);
    const checks: Record<string, string> = { redis: redis.status, sqlite: sqlite.status };
    if (polling) checks.polling = polling.ok ? 'ok' : (polling.reason ?? 'stalled');
    const failed = Object.keys(checks).filter((k) => checks[k] !== 'ok');
    const ready = failed.length === 0;
    // Probes come every few seconds: log the changes, not every answer (the watchdog logs its own).
    const connections = redis.status === 'ok' && sqlite.status === 'ok';
    if (connections !== wasReady) {
      if (!connections) {
        const details = { redis: redis.detail, sqlite: sqlite.detail };
        logger.warn(
          details,
          `not ready: ${failed.filter((k) => k !== 'polling').join(' and ')} did not answer`,
        );
      } else if (wasReady === false) logger.info('ready again: Redis and SQLite answer');
      wasReady = connections;
    }
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', failed, checks });
  });

  app.get('/metrics', metricsGuard(access, deps.web), async (_req, res) => {
    const text = await deps.metrics.metrics();
    res.set('content-type', deps.metrics.contentType).send(text);
  });

  if (access || deps.web) {
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(ADMIN_PATH);
    createBullBoard({
      queues: deps.queues.map((queue) => new BullMQAdapter(queue)),
      serverAdapter,
      options: { uiConfig: { boardTitle: 'reviewwatch' } },
    });
    const router: RequestHandler = serverAdapter.getRouter();
    app.use(ADMIN_PATH, boardGuard(access, deps.web), router);
  } else {
    app.use(ADMIN_PATH, (_req, res) => {
      res.status(404).json({ error: 'not found', hint: CLOSED_HINT });
    });
  }

  if (deps.web) app.use(deps.web.router);

  // Only without the inbox, which answers every other address itself (a page, or JSON to a script). The
  // endpoints are not listed: an address guessed at learns nothing from its 404.
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  // Express recognises an error handler by its four parameters.
  // The inbox answers its own errors; this one sees the endpoints above and Bull Board's.
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const refusal = refusalOf(err);
    if (refusal) {
      res.status(refusal.status).json({ error: refusal.error, problems: refusal.problems });
      return;
    }
    logger.error({ err, method: req.method, path: req.path }, 'ops server error');
    res.status(500).json({ error: 'internal error' });
  });
  return app;
}

interface Check {
  status: 'ok' | 'timeout' | 'not connected' | 'error';
  /** For the log only: may name hosts. */
  detail?: string;
}

async function checkRedis(redis: Redis, timeoutMs: number): Promise<Check> {
  // Commands to a reconnecting client queue up (maxRetriesPerRequest: null): say so instead of waiting.
  if (redis.status !== 'ready') return { status: 'not connected', detail: `connection ${redis.status}` };
  try {
    await withTimeout(redis.ping(), timeoutMs);
    return { status: 'ok' };
  } catch (err) {
    return { status: err instanceof TimeoutError ? 'timeout' : 'error', detail: errorMessage(err) };
  }
}

function checkSqlite(store: Store): Check {
  try {
    store.db.$client.prepare('select 1').get();
    return { status: 'ok' };
  } catch (err) {
    return { status: 'error', detail: errorMessage(err) };
  }
}

/**
 * Why nobody can read /metrics, when nobody can: no admin credentials in the environment and no inbox user
 * to log in as. Said at startup, so that a scrape answered 401 is not a mystery.
 */
function metricsUnreachable(
  options: OpsServerOptions,
  access: AdminCredentials | undefined,
): string | undefined {
  if (access) return undefined;
  const { web, store } = options.deps;
  if (web && listUsers(store.db).length > 0) return undefined;
  const login = web ? '; or add a user (`reviewwatch user add NAME`) and log in at /login' : '';
  return `no credentials are configured. Set REVIEWWATCH_ADMIN_TOKEN and restart, then scrape with "Authorization: Bearer <token>" (Prometheus: authorization.credentials_file in the scrape config)${login}`;
}

/** The admin credentials, or (with the inbox) a session or the admin token as the inbox checks them. */
function hasCredentials(
  req: IncomingMessage,
  access: AdminCredentials | undefined,
  web: Web | undefined,
): boolean {
  return (access !== undefined && authorized(req, access)) || web?.principalOf(req) !== undefined;
}

/**
 * /metrics with the same credentials as Bull Board. Refused with a 401 rather than the inbox's login
 * redirect: Prometheus follows redirects and would report the login page as a malformed scrape.
 */
function metricsGuard(access: AdminCredentials | undefined, web: Web | undefined): RequestHandler {
  const challenges = [`Bearer realm="${REALM}"`];
  if (access?.basic) challenges.push(`Basic realm="${REALM}", charset="UTF-8"`);
  return (req, res, next) => {
    if (hasCredentials(req, access, web)) return next();
    res.setHeader('WWW-Authenticate', challenges);
    res.status(401).json({ error: 'unauthorized', hint: METRICS_HINT });
  };
}

/** The admin credentials as before; with the inbox, its login (or the token) opens the board as well. */
function boardGuard(access: AdminCredentials | undefined, web: Web | undefined): RequestHandler {
  const admin = access ? requireAdmin(access) : undefined;
  if (!web) {
    if (!admin) throw new Error('Bull Board needs credentials or the inbox login');
    return admin;
  }
  return (req, res, next) => {
    if (access && authorized(req, access)) return next();
    web.guard(req, res, next);
  };
}

/**
 * Bearer token, or HTTP basic auth: the configured user and password, or (when only a token is set) any
 * user with the token as password, so a browser's login prompt opens the board too.
 */
function requireAdmin(access: AdminCredentials): RequestHandler {
  const challenges = [`Basic realm="${REALM}", charset="UTF-8"`];
  if (access.token) challenges.unshift(`Bearer realm="${REALM}"`);
  return (req, res, next) => {
    if (authorized(req, access)) return next();
    res.setHeader('WWW-Authenticate', challenges);
    res.status(401).json({
      error: 'unauthorized',
      hint: access.token
        ? 'send "Authorization: Bearer <REVIEWWATCH_ADMIN_TOKEN>", or basic auth with the token as password'
        : 'send basic auth with REVIEWWATCH_ADMIN_USER and REVIEWWATCH_ADMIN_PASSWORD',
    });
  };
}

/** The bearer token as the inbox checks it, or basic auth (the configured pair, or the token as password). */
function authorized(req: IncomingMessage, access: AdminCredentials): boolean {
  if (bearerMatches(req, access.token)) return true;
  const header = req.headers.authorization;
  if (!header) return false;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'basic') return false;
  const decoded = Buffer.from(header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const user = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (access.basic) {
    // Both compared every time, so the answer's timing does not tell a right user from a wrong one.
    const userOk = sameSecret(user, access.basic.user);
    const passwordOk = sameSecret(password, access.basic.password);
    if (userOk && passwordOk) return true;
  }
  return access.token !== undefined && sameSecret(password, access.token);
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        new ReviewwatchError(
          `Cannot serve health and metrics on ${host}:${port} (${err.code ?? err.message}): set http.port in the config or REVIEWWATCH_HTTP_PORT (0 picks a free port), or http.enabled: false`,
          { cause: err, exitCode: ExitCode.Unavailable },
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function urlOf(address: AddressInfo): string {
  const host =
    address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

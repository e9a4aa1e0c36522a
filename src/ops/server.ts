import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Redis } from 'ioredis';
import { ExitCode, errorMessage, ReviewwatchError } from '../errors.js';
import type { Logger } from '../log.js';
import type { AdminCredentials } from '../settings.js';
import type { Store } from '../store/db.js';
import { TimeoutError, withTimeout } from '../util/timeout.js';
import type { Web } from '../web/router.js';
import type { PollingVerdict } from './health.js';
import type { Metrics } from './metrics.js';

export const ADMIN_PATH = '/admin/queues';

/** How long /readyz waits for Redis before calling it down. */
const READY_TIMEOUT_MS = 1_000;

const REALM = 'reviewwatch admin';

const CLOSED_HINT =
  'Bull Board is closed: set REVIEWWATCH_ADMIN_TOKEN (then send "Authorization: Bearer <token>"), or REVIEWWATCH_ADMIN_USER and REVIEWWATCH_ADMIN_PASSWORD (HTTP basic auth), and restart';

export interface OpsServerDeps {
  redis: Redis;
  store: Store;
  /** Shown in Bull Board, and their depths exported by /metrics. */
  queues: readonly Queue[];
  metrics: Metrics;
  /** The polling watchdog of a long-running worker; absent for a server that polls nothing. */
  polling?: { verdict(): PollingVerdict };
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
 * The operations endpoints of `start`: /healthz (the process answers), /readyz (Redis and SQLite answer),
 * /metrics (Prometheus text) and Bull Board at /admin/queues, closed unless credentials are set in the
 * environment. Also points the metrics' queue depths at `deps.queues`.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const { deps, logger } = options;
  deps.metrics.watchQueues(deps.queues);
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
    `ops server at ${url}: ${deps.web ? '/ (the inbox), ' : ''}/healthz, /readyz, /metrics, ${ADMIN_PATH} (${board})`,
  );
  if (!isLoopback(options.host)) {
    logger.warn(`ops server listens on ${options.host}: /metrics and /readyz answer anyone who can reach it`);
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
    const [redis, sqlite] = await Promise.all([
      checkRedis(deps.redis, readyTimeoutMs),
      Promise.resolve().then(() => checkSqlite(deps.store)),
    ]);
    const polling = deps.polling?.verdict();
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

  app.get('/metrics', async (_req, res) => {
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

  app.use((_req, res) => {
    res.status(404).json({ error: 'not found', paths: ['/healthz', '/readyz', '/metrics', ADMIN_PATH] });
  });
  // Express recognises an error handler by its four parameters.
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    logger.error({ err: errorMessage(err), path: req.path }, 'ops server error');
    if (res.headersSent) return next(err);
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

/** The admin credentials as before; with the inbox, its login (or the token) opens the board as well. */
function boardGuard(access: AdminCredentials | undefined, web: Web | undefined): RequestHandler {
  const admin = access ? requireAdmin(access) : undefined;
  if (!web) {
    if (!admin) throw new Error('Bull Board needs credentials or the inbox login');
    return admin;
  }
  return (req, res, next) => {
    if (access && authorized(req.headers.authorization, access)) return next();
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
    if (authorized(req.headers.authorization, access)) return next();
    res.setHeader('WWW-Authenticate', challenges);
    res.status(401).json({
      error: 'unauthorized',
      hint: access.token
        ? 'send "Authorization: Bearer <REVIEWWATCH_ADMIN_TOKEN>", or basic auth with the token as password'
        : 'send basic auth with REVIEWWATCH_ADMIN_USER and REVIEWWATCH_ADMIN_PASSWORD',
    });
  };
}

function authorized(header: string | undefined, access: AdminCredentials): boolean {
  if (!header) return false;
  const space = header.indexOf(' ');
  if (space < 0) return false;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'bearer') return access.token !== undefined && sameSecret(value, access.token);
  if (scheme !== 'basic') return false;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
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

/** Constant-time comparison; hashing first makes the lengths equal without revealing them. */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
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

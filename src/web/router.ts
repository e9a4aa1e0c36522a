/**
 * The triage inbox as one express router, which the ops server mounts at `/` after its own endpoints:
 * the security headers, the assets and the login page for anyone; then, for a session or the admin token
 * only, the bodies, the CSRF check, the pages, the JSON API and the CSV export, then a page for any other
 * address; and one error handler for all of it. Each part lives in middleware/ or routes/.
 */
import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { type AdminCredentials, bearerMatches, type Principal, Sessions } from './auth.js';
import type { WebContext } from './context.js';
import { DEFAULT_LIVE_POLL_MS, LiveState } from './live.js';
import type { LoginLimits } from './login-throttle.js';
import { authenticate, guard, knownPrincipal } from './middleware/authenticate.js';
import { bodyParsers } from './middleware/bodies.js';
import { csrfCheck } from './middleware/csrf.js';
import { answerErrors } from './middleware/errors.js';
import { securityHeaders } from './middleware/security-headers.js';
import { presenterOf } from './present.js';
import { apiRouter } from './routes/api.js';
import { assetsRouter } from './routes/assets.js';
import { exportRouter } from './routes/export.js';
import { liveRouter } from './routes/live.js';
import { loginRouter, logoutRouter } from './routes/login.js';
import { marketRouter } from './routes/market.js';
import { notFoundPage } from './routes/not-found.js';
import { pagesRouter } from './routes/pages.js';
import { topicsRouter } from './routes/topics.js';

export interface WebOptions {
  store: Store;
  config: Config;
  /** REVIEWWATCH_ADMIN_TOKEN opens the API (and the pages) to scripts. */
  admin: AdminCredentials;
  logger: Logger;
  /** The clock sessions expire by; tests move it. */
  now?: () => Date;
  loginLimits?: LoginLimits;
  /** How often a visible page polls `/api/live` (default DEFAULT_LIVE_POLL_MS); tests shorten it. */
  livePollMs?: number;
}

export interface Web {
  router: express.Router;
  /**
   * Lets through a request with a session or the admin token, else answers it (a login redirect for a
   * browser, 401 for a script): for what the ops server serves itself behind the same login (Bull Board).
   */
  guard: RequestHandler;
  principalOf(req: IncomingMessage): Principal | undefined;
}

export function createWeb(options: WebOptions): Web {
  const { store, config, logger } = options;
  const now = options.now ?? (() => new Date());
  const publicUrl = config.web.publicUrl;
  const https = publicUrl?.startsWith('https:') ?? false;
  const sessions = new Sessions(store, { ttlMs: config.web.sessionTtl, secure: https, now });
  const ctx: WebContext = {
    store,
    config,
    logger,
    now,
    publicUrl,
    sessions,
    presenter: presenterOf(config),
    live: new LiveState(store.db, config),
    livePollMs: options.livePollMs ?? DEFAULT_LIVE_POLL_MS,
    principalOf: (req) =>
      bearerMatches(req, options.admin.token) ? { kind: 'token' } : sessions.principalOf(req),
  };

  const router = express.Router();
  router.use(securityHeaders({ https }));
  router.use(assetsRouter());
  router.use(loginRouter(ctx, options.loginLimits));
  // Everything below needs credentials.
  router.use(authenticate(ctx));
  router.use(...bodyParsers);
  router.use(csrfCheck(ctx));
  router.use(logoutRouter(ctx));
  router.use(pagesRouter(ctx));
  router.use(liveRouter(ctx));
  router.use(apiRouter(ctx));
  router.use(exportRouter(ctx));
  router.use(marketRouter(ctx));
  router.use(topicsRouter(ctx));
  router.use(notFoundPage(ctx));
  router.use(answerErrors({ logger, principalOf: (req) => knownPrincipal(req, ctx) }));

  return { router, guard: guard(ctx), principalOf: ctx.principalOf };
}

/**
 * The triage inbox: the login page, the list (`GET /`), a review's page, their forms, and the JSON API,
 * as one express router the ops server mounts at `/` after its own endpoints. Everything but the login
 * page and the stylesheet needs a session or the admin token; every state-changing request made with a
 * session cookie needs its CSRF token and must come from this site.
 */
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { HANDLE_PATTERN } from '../catalog/handle.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { AdminCredentials } from '../settings.js';
import { appPage } from '../store/app-page.js';
import type { Store } from '../store/db.js';
import { listInbox } from '../store/inbox.js';
import { reviewDetail, reviewExists, reviewRowIdOf } from '../store/review-detail.js';
import {
  applyTriage,
  applyTriageToMany,
  isTriageStatus,
  MAX_BULK,
  MAX_NOTE_LENGTH,
  TRIAGE_STATUSES,
  type TriageChange,
  TriageInputError,
} from '../store/triage.js';
import { listUsers } from '../store/users.js';
import { detailJson, eventJson, rowJson, triageJson } from './api-json.js';
import { ASSETS } from './assets.js';
import {
  actorOf,
  bearerMatches,
  crossSite,
  type Principal,
  parseCookies,
  randomToken,
  Sessions,
  sameSecret,
} from './auth.js';
import { writeInboxCsv } from './csv.js';
import { answerErrors, BODY_LIMIT_BYTES } from './errors.js';
import { INBOX_QUERY, type InboxQuery, inboxFilterOf } from './filters.js';
import { BadInputError, defineQuery, NO_QUERY, param, parseBody } from './input.js';
import { DEFAULT_LOGIN_LIMITS, type LoginLimits, LoginThrottle } from './login-throttle.js';
import { appPageHtml } from './pages/app.js';
import { inboxPage } from './pages/inbox.js';
import { loginPage } from './pages/login.js';
import { messagePage } from './pages/message.js';
import { reviewPage } from './pages/review.js';
import { presenterOf } from './present.js';
import { checkLogin } from './users.js';

export interface WebOptions {
  store: Store;
  config: Config;
  /** REVIEWWATCH_ADMIN_TOKEN opens the API (and the pages) to scripts. */
  admin: AdminCredentials;
  logger: Logger;
  /** The clock sessions expire by; tests move it. */
  now?: () => Date;
  loginLimits?: LoginLimits;
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

/** No inline script or style, nothing from elsewhere, no framing, forms only to this site. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** An app's page: its rating over this many days, its volume over these weeks, its distribution then. */
const APP_PAGE_DAYS = 90;
const APP_PAGE_WEEKS = 12;
const APP_PAGE_COMPARE_WEEKS = 4;
const LOGIN_COOKIE_AGE_S = 3_600;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const principals = new WeakMap<IncomingMessage, Principal>();

function principalOfRequest(req: Request): Principal {
  const principal = principals.get(req);
  // The routes below the authentication middleware are only reached with one.
  if (!principal) throw new Error('no principal on an authenticated route');
  return principal;
}

/** Only a path of this site: `//evil.example` and `/\evil.example` are other sites to a browser. */
function safeNext(next: string | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}

function wantsHtml(req: Request): boolean {
  return !req.path.startsWith('/api/') && (req.method === 'GET' || req.method === 'HEAD');
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Refuses a body of another type than the route reads (the parsers leave it unread, and the route would
 * see no body at all). A request without a body passes: the body's schema says what it lacks.
 */
function bodyOfType(type: typeof JSON_TYPE | typeof FORM_TYPE): RequestHandler {
  return (req, _res, next) => {
    if (req.is(type) !== false) return next();
    const given = req.headers['content-type'];
    next(
      new BadInputError('body', [
        {
          name: 'content-type',
          message: `the body is ${given ? `of type ${given}` : 'of no stated type'}; this takes ${type}`,
        },
      ]),
    );
  };
}

/** A route without query parameters refuses any. */
const noQuery: RequestHandler = (req, _res, next) => {
  NO_QUERY.parse(req.query);
  next();
};

const LOGIN_QUERY = defineQuery({ next: param('a path of this site, such as /reviews/12', z.string()) });

/** The login form as the login page sends it; anything else is refused. */
const loginForm = z.object({
  _csrf: z.string().optional(),
  next: z.string().optional(),
  name: z.string().max(200).default(''),
  password: z.string().max(1_000).default(''),
});

const formField = { _csrf: z.string().optional() };

/** What a form on a review's page asks for. */
const reviewForm = z.discriminatedUnion('action', [
  z.object({ ...formField, action: z.literal('status'), status: z.enum(TRIAGE_STATUSES) }),
  z.object({ ...formField, action: z.literal('assign'), assignee: z.string().default('') }),
  z.object({ ...formField, action: z.literal('tag'), tag: z.string() }),
  z.object({ ...formField, action: z.literal('untag'), tag: z.string() }),
  z.object({ ...formField, action: z.literal('note'), note: z.string().max(MAX_NOTE_LENGTH) }),
]);

/** The list's bulk form: the ids ticked (one or repeated) and `status:<status>`, `assign:<name>` or `tag`. */
const bulkForm = z.object({
  ...formField,
  back: z.string().optional(),
  ids: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .pipe(
      z
        .array(
          z
            .string()
            .regex(/^\d{1,15}$/, 'a review number')
            .transform(Number),
        )
        .max(MAX_BULK),
    ),
  action: z.string(),
  tag: z.string().optional(),
});

const BULK_FORM_HINT = 'tick reviews in the list, choose what to do with them, and apply';

const changeFields = {
  status: z.enum(TRIAGE_STATUSES).optional(),
  assignee: z.string().min(1).nullable().optional(),
  addTags: z.array(z.string()).max(20).optional(),
  removeTags: z.array(z.string()).max(20).optional(),
  note: z.string().max(MAX_NOTE_LENGTH).optional(),
};

const triageBody = z
  .strictObject(changeFields)
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to change' });

const bulkBody = z
  .strictObject({ ids: z.array(z.number().int().positive()).min(1).max(MAX_BULK), ...changeFields })
  .refine((b) => Object.keys(b).length > 1, { message: 'nothing to change' });

type ChangeFields = z.infer<typeof triageBody>;

/** The store's change from the API's fields (zod's optional keys may be present as undefined). */
function changeOf(fields: ChangeFields): TriageChange {
  const { status, assignee, addTags, removeTags, note } = fields;
  return {
    ...(status ? { status } : {}),
    ...(assignee !== undefined ? { assignee } : {}),
    ...(addTags ? { addTags } : {}),
    ...(removeTags ? { removeTags } : {}),
    ...(note !== undefined ? { note } : {}),
  };
}

export function createWeb(options: WebOptions): Web {
  const { store, config, logger } = options;
  const now = options.now ?? (() => new Date());
  const publicUrl = config.web.publicUrl;
  const sessions = new Sessions(store, {
    ttlMs: config.web.sessionTtl,
    secure: publicUrl?.startsWith('https:') ?? false,
    now,
  });
  const loginCookie = publicUrl?.startsWith('https:') ? '__Host-rw_login' : 'rw_login';
  const throttle = new LoginThrottle(options.loginLimits ?? DEFAULT_LOGIN_LIMITS);
  const presenter = presenterOf(config);
  const userNames = () => listUsers(store.db).map((u) => u.name);
  const apps = () => config.apps.map((a) => presenter.app(a.handle, ''));

  const principalOf = (req: IncomingMessage): Principal | undefined =>
    bearerMatches(req, options.admin.token) ? { kind: 'token' } : sessions.principalOf(req);

  const refuse = (req: Request, res: Response) => {
    if (wantsHtml(req)) {
      res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
      return;
    }
    res.setHeader('WWW-Authenticate', 'Bearer realm="reviewwatch"');
    res.status(401).json({
      error: 'unauthorized',
      hint: 'log in at /login, or send "Authorization: Bearer <REVIEWWATCH_ADMIN_TOKEN>"',
    });
  };

  /** The CSRF token and the site of a state-changing request made with a session cookie. */
  const forged = (req: Request, principal: Principal): boolean => {
    if (principal.kind !== 'user' || !UNSAFE.has(req.method)) return false;
    if (crossSite(req, publicUrl)) return true;
    const header = req.headers['x-csrf-token'];
    const posted: unknown = req.body?._csrf;
    const token = typeof posted === 'string' ? posted : typeof header === 'string' ? header : undefined;
    return token === undefined || !sameSecret(token, principal.csrfToken);
  };

  /** The forms' and the API's bodies, up to BODY_LIMIT_BYTES; a larger one is a 413, a malformed one a 400. */
  const bodyParsers = [
    express.urlencoded({ extended: false, limit: BODY_LIMIT_BYTES }),
    express.json({ limit: BODY_LIMIT_BYTES }),
  ];

  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  for (const asset of ASSETS) {
    router.get(asset.path, (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.type(asset.contentType).send(asset.body);
    });
  }

  const showLogin = (
    req: Request,
    res: Response,
    status: number,
    form: { next: string; name?: string; error?: string },
  ) => {
    // The token a browser already holds is kept: a second login tab, or a request the browser makes on its
    // own (a favicon sent here to log in), must not invalidate the form on screen.
    const held = parseCookies(req.headers.cookie).get(loginCookie);
    const csrf = held && /^[\w-]{43}$/.test(held) ? held : randomToken();
    res.setHeader(
      'Set-Cookie',
      sessions.cookie(loginCookie, csrf, { maxAgeSeconds: LOGIN_COOKIE_AGE_S, sameSite: 'Strict' }),
    );
    res
      .status(status)
      .type('html')
      .send(loginPage({ csrf, ...form }));
  };

  // Browsers ask for it on their own; there is none, and a login redirect for it would be noise.
  router.get('/favicon.ico', (_req, res) => {
    res.status(404).end();
  });

  router.get('/login', (req, res) => {
    // The login form is always shown, so that a mangled link still lets one log in; a `next` off this
    // site is replaced by the inbox (that is no mistake of the caller's, but a link someone else made).
    const { query, problems } = LOGIN_QUERY.read(req.query);
    const next = safeNext(query.next);
    if (problems.length > 0) {
      showLogin(req, res, 400, { next, error: problems.map((p) => p.message).join('; ') });
      return;
    }
    if (principalOf(req)) {
      res.redirect(303, next);
      return;
    }
    showLogin(req, res, 200, { next });
  });

  router.post('/login', noQuery, ...bodyParsers, bodyOfType(FORM_TYPE), async (req, res) => {
    const form = loginForm.safeParse(req.body ?? {});
    if (!form.success) {
      showLogin(req, res, 400, { next: '/', error: 'The login form could not be read. Please try again.' });
      return;
    }
    const name = form.data.name.trim().toLowerCase();
    const { password } = form.data;
    const next = safeNext(form.data.next);
    const expected = parseCookies(req.headers.cookie).get(loginCookie);
    const given = form.data._csrf;
    if (!expected || !given || !sameSecret(given, expected) || crossSite(req, publicUrl)) {
      showLogin(req, res, 403, { next, name, error: 'The login form expired. Please try again.' });
      return;
    }
    const address = req.socket.remoteAddress ?? 'unknown';
    const at = now().getTime();
    const wait = throttle.retryAfterMs(name, address, at);
    if (wait > 0) {
      const minutes = Math.ceil(wait / 60_000);
      res.setHeader('Retry-After', String(Math.ceil(wait / 1000)));
      logger.warn({ name, address }, 'login refused: too many failed attempts');
      showLogin(req, res, 429, {
        next,
        name,
        error: `Too many failed logins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      });
      return;
    }
    const user = await checkLogin(store, name, password);
    if (!user) {
      throttle.failed(name, address, at);
      logger.info({ name, address }, 'login failed');
      showLogin(req, res, 401, { next, name, error: 'Wrong name or password.' });
      return;
    }
    throttle.succeeded(name);
    logger.info({ name: user.name }, 'logged in');
    res.setHeader('Set-Cookie', [
      sessions.start(user.id),
      sessions.cookie(loginCookie, '', { maxAgeSeconds: 0, sameSite: 'Strict' }),
    ]);
    res.redirect(303, next);
  });

  // Everything below needs credentials.
  router.use((req, res, next) => {
    const principal = principalOf(req);
    if (!principal) return refuse(req, res);
    principals.set(req, principal);
    next();
  });
  router.use(...bodyParsers);
  router.use((req, res, next) => {
    if (!forged(req, principalOfRequest(req))) return next();
    logger.warn({ path: req.path }, 'refused a state-changing request without a valid CSRF token');
    res.status(403).json({ error: 'forbidden', hint: 'the CSRF token is missing or wrong; reload the page' });
  });

  router.post('/logout', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
    res.setHeader('Set-Cookie', sessions.end(principalOfRequest(req)));
    res.redirect(303, '/login');
  });

  const pageOf = (query: InboxQuery) =>
    listInbox(store.db, inboxFilterOf(query, config, now()), {
      ...(query.limit ? { limit: query.limit } : {}),
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });

  router.get('/', (req, res) => {
    // A filter that cannot be applied shows the form with what was valid, to correct the rest.
    const { query, problems } = INBOX_QUERY.read(req.query);
    res
      .status(problems.length > 0 ? 400 : 200)
      .type('html')
      .send(
        inboxPage({
          principal: principalOfRequest(req),
          query,
          problems,
          ...(problems.length > 0 ? {} : { page: pageOf(query) }),
          apps: apps(),
          users: userNames(),
          maxRating: config.alerts.lowRating.maxRating,
          presenter,
        }),
      );
  });

  router.get('/export.csv', async (req, res) => {
    const query = INBOX_QUERY.parse(req.query);
    const day = now().toISOString().slice(0, 10);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="reviewwatch-inbox-${day}.csv"`);
    const count = await writeInboxCsv(res, store.db, inboxFilterOf(query, config, now()), {
      presenter,
      publicUrl,
    });
    logger.info({ count, actor: actorOf(principalOfRequest(req)) }, 'inbox exported as CSV');
    res.end();
  });

  // Where alerts link (render/wording.ts inboxLinks): a review by its app and marketplace id.
  router.get('/apps/:handle/reviews/:reviewId', noQuery, (req, res) => {
    const { handle, reviewId } = req.params;
    const id =
      typeof handle === 'string' && typeof reviewId === 'string' && HANDLE_PATTERN.test(handle)
        ? reviewRowIdOf(store.db, handle, reviewId)
        : undefined;
    if (id === undefined) {
      res
        .status(404)
        .type('html')
        .send(messagePage('Not found', 'No such review (yet).', '/', principalOfRequest(req)));
      return;
    }
    res.redirect(303, `/reviews/${id}`);
  });

  router.get('/apps/:handle', noQuery, (req, res) => {
    const handle = req.params.handle;
    const configured = config.apps.some((a) => a.handle === handle);
    const page =
      typeof handle === 'string' && HANDLE_PATTERN.test(handle)
        ? appPage(store.db, handle, {
            now: now(),
            days: APP_PAGE_DAYS,
            weeks: APP_PAGE_WEEKS,
            compareWeeks: APP_PAGE_COMPARE_WEEKS,
            maxRating: config.alerts.lowRating.maxRating,
          })
        : undefined;
    if (!page || (!page.known && !configured)) {
      res
        .status(404)
        .type('html')
        .send(messagePage('Not found', 'No such app.', '/', principalOfRequest(req)));
      return;
    }
    res.type('html').send(
      appPageHtml({
        principal: principalOfRequest(req),
        app: presenter.app(page.handle, page.title ?? ''),
        page,
        days: APP_PAGE_DAYS,
        compareWeeks: APP_PAGE_COMPARE_WEEKS,
      }),
    );
  });

  const reviewIdOf = (req: Request): number | undefined => {
    const raw = req.params.id;
    return typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
  };

  const showReview = (req: Request, res: Response, status: number, error?: string) => {
    const id = reviewIdOf(req);
    const detail = id === undefined ? undefined : reviewDetail(store.db, id);
    if (!detail) {
      res
        .status(404)
        .type('html')
        .send(messagePage('Not found', 'No such review.', '/', principalOfRequest(req)));
      return;
    }
    res
      .status(status)
      .type('html')
      .send(
        reviewPage({
          principal: principalOfRequest(req),
          detail,
          users: userNames(),
          presenter,
          ...(error ? { error } : {}),
        }),
      );
  };

  router.get('/reviews/:id', noQuery, (req, res) => showReview(req, res, 200));

  router.post('/reviews/:id/triage', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
    const id = reviewIdOf(req);
    if (id === undefined || !reviewExists(store.db, id)) return showReview(req, res, 404);
    const form = reviewForm.safeParse(req.body ?? {});
    if (!form.success) {
      const problems = form.error.issues.map((i) => `${i.path.join('.') || 'form'}: ${i.message}`);
      return showReview(req, res, 400, `Nothing was changed: ${problems.join('; ')}.`);
    }
    const change = formChange(form.data);
    try {
      applyTriage(store.db, id, change, actorOf(principalOfRequest(req)), now());
    } catch (err) {
      if (err instanceof TriageInputError) return showReview(req, res, 400, err.message);
      throw err;
    }
    res.redirect(303, `/reviews/${id}#triage`);
  });

  router.post('/reviews/bulk', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
    const form = bulkForm.safeParse(req.body ?? {});
    const back = safeNext(form.success ? form.data.back : undefined);
    const fail = (message: string) =>
      res
        .status(400)
        .type('html')
        .send(
          messagePage(
            'Nothing was changed',
            `Nothing was changed: ${message}.`,
            back,
            principalOfRequest(req),
          ),
        );
    if (!form.success) {
      return fail(form.error.issues.map((i) => `${i.path.join('.') || 'form'}: ${i.message}`).join('; '));
    }
    const change = bulkChange(form.data);
    if (!change) return fail(`choose what to do with the selected reviews (${BULK_FORM_HINT})`);
    try {
      applyTriageToMany(store.db, form.data.ids, change, actorOf(principalOfRequest(req)), now());
    } catch (err) {
      if (err instanceof TriageInputError) return fail(err.message);
      throw err;
    }
    res.redirect(303, back);
  });

  router.post('/api/reviews/triage', noQuery, bodyOfType(JSON_TYPE), (req, res) => {
    const { ids, ...rest } = parseBody(
      bulkBody,
      req.body,
      'send JSON: {"ids": [1, 2], and what to change as for one review}',
    );
    const results = applyTriageToMany(store.db, ids, changeOf(rest), actorOf(principalOfRequest(req)), now());
    res.json({
      results: results.map((r) => ({
        id: r.reviewRowId,
        triage: triageJson(r.state),
        events: r.events.map(eventJson),
      })),
    });
  });

  router.get('/api/reviews', (req, res) => {
    const query = INBOX_QUERY.parse(req.query);
    const page = pageOf(query);
    res.json({
      reviews: page.rows.map((r) => rowJson(r, presenter, publicUrl)),
      next: page.next ?? null,
    });
  });

  router.get('/api/reviews/:id', noQuery, (req, res) => {
    const id = reviewIdOf(req);
    const detail = id === undefined ? undefined : reviewDetail(store.db, id);
    if (!detail) {
      res.status(404).json({ error: 'no such review' });
      return;
    }
    res.json(detailJson(detail, presenter, publicUrl));
  });

  router.post('/api/reviews/:id/triage', noQuery, bodyOfType(JSON_TYPE), (req, res) => {
    const id = reviewIdOf(req);
    if (id === undefined || !reviewExists(store.db, id)) {
      res.status(404).json({ error: 'no such review' });
      return;
    }
    const change = parseBody(
      triageBody,
      req.body,
      'send JSON: {"status"?, "assignee"? (null unassigns), "addTags"?, "removeTags"?, "note"?}',
    );
    const result = applyTriage(store.db, id, changeOf(change), actorOf(principalOfRequest(req)), now());
    res.json({ triage: triageJson(result.state), events: result.events.map(eventJson) });
  });

  router.use(answerErrors({ logger, principalOf: (req) => principals.get(req) ?? principalOf(req) }));

  const guard: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    const principal = principalOf(req);
    if (!principal) return refuse(req, res);
    // Bull Board's own calls carry no CSRF token: for them, the site check and SameSite=Lax must do.
    if (principal.kind === 'user' && UNSAFE.has(req.method) && crossSite(req, publicUrl)) {
      res.status(403).json({ error: 'forbidden', hint: 'cross-site request refused' });
      return;
    }
    next();
  };

  return { router, guard, principalOf };
}

/** What the list's bulk form asks for; undefined when it asks for nothing known. */
function bulkChange(form: z.infer<typeof bulkForm>): TriageChange | undefined {
  const { action } = form;
  if (action.startsWith('status:')) {
    const status = action.slice(7);
    return isTriageStatus(status) ? { status } : undefined;
  }
  if (action.startsWith('assign:')) return { assignee: action.slice(7) || null };
  if (action === 'tag') return { addTags: [form.tag ?? ''] };
  return undefined;
}

/** The store's change for a form of a review's page. */
function formChange(form: z.infer<typeof reviewForm>): TriageChange {
  switch (form.action) {
    case 'status':
      return { status: form.status };
    case 'assign':
      return { assignee: form.assignee || null };
    case 'tag':
      return { addTags: [form.tag] };
    case 'untag':
      return { removeTags: [form.tag] };
    case 'note':
      return { note: form.note };
  }
}

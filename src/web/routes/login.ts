/**
 * Logging in and out. The login form is guarded by its own CSRF token, held in a short-lived cookie
 * (there is no session yet), and by a throttle of failed logins per name and per address; a successful
 * login starts a session (auth.ts) and goes where the user was sent away from, never off this site.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { crossSite, randomToken, readCookie, sameSecret } from '../auth.js';
import type { WebContext } from '../context.js';
import { defineQuery, noQuery, param } from '../input.js';
import { DEFAULT_LOGIN_LIMITS, type LoginLimits, LoginThrottle } from '../login-throttle.js';
import { principalOfRequest } from '../middleware/authenticate.js';
import { bodyOfType, bodyParsers, FORM_TYPE } from '../middleware/bodies.js';
import { loginPage } from '../pages/login.js';
import { checkLogin } from '../users.js';

const LOGIN_COOKIE_AGE_S = 3_600;

const LOGIN_QUERY = defineQuery({ next: param('a path of this site, such as /reviews/12', z.string()) });

/** The login form as the login page sends it; anything else is refused. */
const loginForm = z.object({
  _csrf: z.string().optional(),
  next: z.string().optional(),
  name: z.string().max(200).default(''),
  password: z.string().max(1_000).default(''),
});

/** Only a path of this site: `//evil.example` and `/\evil.example` are other sites to a browser. */
export function safeNext(next: string | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}

/** The login page and form, for anyone. */
export function loginRouter(ctx: WebContext, limits: LoginLimits = DEFAULT_LOGIN_LIMITS): express.Router {
  const { sessions, logger } = ctx;
  const loginCookie = ctx.publicUrl?.startsWith('https:') ? '__Host-rw_login' : 'rw_login';
  const throttle = new LoginThrottle(limits);

  const showLogin = (
    req: Request,
    res: Response,
    status: number,
    form: { next: string; name?: string; error?: string },
  ) => {
    // The token a browser already holds is kept: a second login tab, or a request the browser makes on its
    // own (a favicon sent here to log in), must not invalidate the form on screen.
    const held = readCookie(req, loginCookie);
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

  const router = express.Router();

  router.get('/login', (req, res) => {
    // The login form is always shown, so that a mangled link still lets one log in; a `next` off this
    // site is replaced by the inbox (that is no mistake of the caller's, but a link someone else made).
    const { query, problems } = LOGIN_QUERY.read(req.query);
    const next = safeNext(query.next);
    if (problems.length > 0) {
      showLogin(req, res, 400, { next, error: problems.map((p) => p.message).join('; ') });
      return;
    }
    if (ctx.principalOf(req)) {
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
    const expected = readCookie(req, loginCookie);
    const given = form.data._csrf;
    if (!expected || !given || !sameSecret(given, expected) || crossSite(req, ctx.publicUrl)) {
      showLogin(req, res, 403, { next, name, error: 'The login form expired. Please try again.' });
      return;
    }
    const address = req.socket.remoteAddress ?? 'unknown';
    const at = ctx.now().getTime();
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
    const user = await checkLogin(ctx.store, name, password);
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

  return router;
}

/** Ending the session: mounted after authentication and the CSRF check, like every change. */
export function logoutRouter(ctx: WebContext): express.Router {
  const router = express.Router();
  router.post('/logout', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
    res.setHeader('Set-Cookie', ctx.sessions.end(principalOfRequest(req)));
    res.redirect(303, '/login');
  });
  return router;
}

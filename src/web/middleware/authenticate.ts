/**
 * Who is asking, for everything past the login page: a session (cookie) or the admin token (bearer). A
 * request with neither is sent to the login page when a browser asked for a page, else refused with a 401
 * that says how to authenticate.
 */
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { crossSite, type Principal } from '../auth.js';
import type { WebContext } from '../context.js';

export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const principals = new WeakMap<IncomingMessage, Principal>();

/** The principal `authenticate` found; only routes mounted after it call this. */
export function principalOfRequest(req: Request): Principal {
  const principal = principals.get(req);
  if (!principal) throw new Error('no principal on an authenticated route');
  return principal;
}

/** The principal of a request, whether or not it got past `authenticate` (for an error page's header). */
export function knownPrincipal(req: Request, ctx: WebContext): Principal | undefined {
  return principals.get(req) ?? ctx.principalOf(req);
}

function wantsLoginPage(req: Request): boolean {
  return !req.path.startsWith('/api/') && (req.method === 'GET' || req.method === 'HEAD');
}

function refuse(req: Request, res: Response): void {
  if (wantsLoginPage(req)) {
    res.redirect(303, `/login?next=${encodeURIComponent(req.originalUrl)}`);
    return;
  }
  res.setHeader('WWW-Authenticate', 'Bearer realm="reviewwatch"');
  res.status(401).json({
    error: 'unauthorized',
    hint: 'log in at /login, or send "Authorization: Bearer <REVIEWWATCH_ADMIN_TOKEN>"',
  });
}

/** Lets through a request with a session or the token, remembering which; answers the rest. */
export function authenticate(ctx: WebContext): RequestHandler {
  return (req, res, next) => {
    const principal = ctx.principalOf(req);
    if (!principal) return refuse(req, res);
    principals.set(req, principal);
    next();
  };
}

/**
 * For what the ops server serves behind the same login (Bull Board): a session or the token, and a
 * change made with a session must come from this site. Bull Board's own calls carry no CSRF token: for
 * them, the site check and SameSite=Lax must do.
 */
export function guard(ctx: WebContext): RequestHandler {
  return (req, res, next) => {
    const principal = ctx.principalOf(req);
    if (!principal) return refuse(req, res);
    if (principal.kind === 'user' && UNSAFE_METHODS.has(req.method) && crossSite(req, ctx.publicUrl)) {
      res.status(403).json({ error: 'forbidden', hint: 'cross-site request refused' });
      return;
    }
    next();
  };
}

/**
 * A state-changing request made with a session cookie must carry the session's CSRF token (the forms'
 * `_csrf` field, or the `X-CSRF-Token` header the page's script sends) and come from this site. The token
 * lives in the session's row (a synchronizer token): nothing to sign, and it ends with the session. A
 * request with the admin token needs neither: a bearer header is never sent by a browser on its own.
 */
import type { RequestHandler } from 'express';
import { crossSite, sameSecret } from '../auth.js';
import type { WebContext } from '../context.js';
import { principalOfRequest, UNSAFE_METHODS } from './authenticate.js';

/** Mounted after `authenticate` and the body parsers (the token of a form is in its body). */
export function csrfCheck(ctx: WebContext): RequestHandler {
  return (req, res, next) => {
    const principal = principalOfRequest(req);
    if (principal.kind !== 'user' || !UNSAFE_METHODS.has(req.method)) return next();
    const header = req.headers['x-csrf-token'];
    const posted: unknown = req.body?._csrf;
    const token = typeof posted === 'string' ? posted : typeof header === 'string' ? header : undefined;
    const forged =
      crossSite(req, ctx.publicUrl) || token === undefined || !sameSecret(token, principal.csrfToken);
    if (!forged) return next();
    ctx.logger.warn({ path: req.path }, 'refused a state-changing request without a valid CSRF token');
    res.status(403).json({ error: 'forbidden', hint: 'the CSRF token is missing or wrong; reload the page' });
  };
}

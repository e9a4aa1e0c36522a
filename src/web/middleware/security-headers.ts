/**
 * The headers every answer of the inbox carries, set by helmet: a strict Content-Security-Policy (no
 * inline script or style, nothing from another site, no framing, forms only to this site), no sniffing,
 * no referrer to other sites, and helmet's other defaults (cross-origin isolation of the pages, no DNS
 * prefetching, no X-Powered-By). Pages are never cached: they show who is logged in and review text.
 */
import type { RequestHandler } from 'express';
import helmet from 'helmet';

const DIRECTIVES = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/** HSTS only when the inbox is served over https (`web.publicUrl`); a browser ignores it over http anyway. */
export function securityHeaders(options: { https: boolean }): RequestHandler[] {
  return [
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: DIRECTIVES },
      xFrameOptions: { action: 'deny' },
      referrerPolicy: { policy: 'same-origin' },
      strictTransportSecurity: options.https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    }),
    (_req, res, next) => {
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
  ];
}

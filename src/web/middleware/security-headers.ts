/**
 * The headers every answer of the inbox carries: a strict Content-Security-Policy (no inline script or
 * style, nothing from another site, no framing, forms only to this site), no sniffing, no framing, no
 * referrer to other sites. Pages are never cached: they show who is logged in and review text.
 */
import type { RequestHandler } from 'express';

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

export function securityHeaders(_options: { https: boolean }): RequestHandler[] {
  return [
    (_req, res, next) => {
      res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('X-Frame-Options', 'DENY');
      res.setHeader('Referrer-Policy', 'same-origin');
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
  ];
}

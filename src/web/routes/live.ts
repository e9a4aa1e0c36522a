/**
 * `/api/live`: what an open page polls for (web/live.ts). It takes the list's filters, as the page's own
 * URL has them, plus `after` and `events`, the store's mark the page was drawn at, and `tabs=1` from a
 * page that shows the tabs' counts. An unchanged store is a
 * 304 to a request that sends the ETag it was given, so an idle tab costs three index lookups.
 */
import express from 'express';
import { z } from 'zod';
import { userNameOf } from '../auth.js';
import type { WebContext } from '../context.js';
import { datesInOrder, INBOX_QUERY } from '../filters.js';
import { defineQuery, param } from '../input.js';
import { principalOfRequest } from '../middleware/authenticate.js';

const mark = (what: string) =>
  param(
    `${what}: a whole number, as the page's live URL gives it`,
    z
      .string()
      .regex(/^\d{1,15}$/)
      .transform(Number),
  );

export const LIVE_QUERY = defineQuery(
  {
    ...INBOX_QUERY.params,
    after: mark('the newest review the page shows'),
    events: mark('the newest triage event the page knows'),
    tabs: param('1, for the counts of the tabs', z.literal('1')),
  },
  { check: datesInOrder },
);

export function liveRouter(ctx: WebContext): express.Router {
  const { live } = ctx;
  const router = express.Router();
  router.get('/api/live', (req, res) => {
    const { after, events, tabs, ...view } = LIVE_QUERY.parse(req.query);
    const me = userNameOf(principalOfRequest(req));
    const query = { view, after, events: events ?? 0, ...(tabs ? { tabs: { me } } : {}) };
    const now = ctx.now();
    const at = live.mark();
    const etag = live.etag(at, query, now);
    // Pages are never cached (security-headers.ts); this answer may be kept, but only to ask again.
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('ETag', etag);
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    res.json(live.answer(at, query, now));
  });
  return router;
}

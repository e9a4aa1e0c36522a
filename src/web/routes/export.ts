/** `/export.csv`: any view of the list, every page of it, streamed (csv.ts), with the list's parameters. */
import express from 'express';
import { actorOf, userNameOf } from '../auth.js';
import type { WebContext } from '../context.js';
import { writeInboxCsv } from '../csv.js';
import { DATA_VIEW, INBOX_QUERY, inboxFilterOf } from '../filters.js';
import { principalOfRequest } from '../middleware/authenticate.js';

export function exportRouter(ctx: WebContext): express.Router {
  const router = express.Router();
  router.get('/export.csv', async (req, res) => {
    const query = INBOX_QUERY.parse(req.query);
    const now = ctx.now();
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="reviewwatch-inbox-${now.toISOString().slice(0, 10)}.csv"`,
    );
    const me = userNameOf(principalOfRequest(req));
    const filter = inboxFilterOf(query, ctx.config, now, { me, defaultView: DATA_VIEW });
    const count = await writeInboxCsv(res, ctx.store.db, filter, {
      presenter: ctx.presenter,
      publicUrl: ctx.publicUrl,
      ...(query.sort ? { sort: query.sort } : {}),
    });
    ctx.logger.info({ count, actor: actorOf(principalOfRequest(req)) }, 'inbox exported as CSV');
    res.end();
  });
  return router;
}

/**
 * What the inbox answers for an address it has no page for: a page that says so and leads back to the
 * inbox and the apps' pages, or `{ "error": "not found" }` to a script. Nothing about the server's other
 * endpoints: a mistyped address is no reason to list them.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { WebContext } from '../context.js';
import { html } from '../html.js';
import { principalOfRequest } from '../middleware/authenticate.js';
import { wantsJson } from '../middleware/errors.js';
import { layout } from '../pages/layout.js';

export function notFoundPage(ctx: WebContext): RequestHandler {
  return (req: Request, res: Response) => {
    res.status(404);
    if (wantsJson(req)) {
      res.json({ error: 'not found' });
      return;
    }
    const apps = ctx.config.apps.map((a) => ctx.presenter.app(a.handle, ''));
    res.type('html').send(
      layout({
        title: 'Not found',
        principal: principalOfRequest(req),
        body: html`<h1>Nothing here</h1>
<p>The inbox has no page at this address. It may have been mistyped, or a link was cut short.</p>
<ul>
  <li><a href="/">The inbox</a>: reviews to triage</li>
  ${apps.map((a) => html`<li><a href="/apps/${a.handle}">${a.name}</a>${a.role === 'competitor' ? ' (competitor)' : ''}: its rating and reviews</li>`)}
</ul>`,
      }),
    );
  };
}

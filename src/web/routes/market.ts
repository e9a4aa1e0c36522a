/**
 * The market's pages and JSON (docs/inbox.md): the overview (`/market`, `/api/market`), a category over
 * time (`/categories/:handle`, `/api/categories/:handle`) and an app's listing changes
 * (`/api/apps/:handle/changes`; its page shows them too). Behind the same login as the rest of the inbox;
 * every query parameter is declared here, and an unknown handle is a 404.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { HANDLE_PATTERN } from '../../catalog/handle.js';
import type { WebContext } from '../context.js';
import { defineQuery, noQuery, param } from '../input.js';
import { liveUrl } from '../live.js';
import { categoryJson, changesJson, overviewJson } from '../market-json.js';
import {
  CATEGORY_DAYS,
  categoryView,
  listingAppKnown,
  listingTimeline,
  marketInputOf,
  marketOverview,
} from '../market-views/index.js';
import { principalOfRequest } from '../middleware/authenticate.js';
import { categoryPage } from '../pages/category.js';
import { marketPage } from '../pages/market.js';
import { messagePage } from '../pages/message.js';

const MAX_DAYS = 365;
/** Listing versions a page of `/api/apps/:handle/changes` holds by default, and at most. */
const CHANGES_PAGE = 20;
const MAX_CHANGES_PAGE = 100;

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/)
    .transform(Number)
    .refine((n) => n >= min && n <= max);

export const CATEGORY_QUERY = defineQuery({
  days: param(`a whole number of days from 1 to ${MAX_DAYS}`, wholeNumber(1, MAX_DAYS)),
});

export const CHANGES_QUERY = defineQuery({
  limit: param(
    `a whole number of listing versions from 1 to ${MAX_CHANGES_PAGE}`,
    wholeNumber(1, MAX_CHANGES_PAGE),
  ),
  cursor: param('the `next` of the page before, as given', wholeNumber(1, Number.MAX_SAFE_INTEGER)),
});

/** A handle from the path, or undefined for anything that cannot be one (a 404, never a 400). */
function handleParam(raw: unknown): string | undefined {
  return typeof raw === 'string' && raw.length <= 200 && HANDLE_PATTERN.test(raw) ? raw : undefined;
}

export function marketRouter(ctx: WebContext): express.Router {
  const { store, config, now, publicUrl } = ctx;
  const input = () => marketInputOf(config);
  const router = express.Router();

  const notFound = (req: Request, res: Response, message: string) =>
    res
      .status(404)
      .type('html')
      .send(messagePage('Not found', message, '/market', principalOfRequest(req)));

  router.get('/market', noQuery, (req, res) => {
    const overview = marketOverview(store.db, input(), now());
    // The open count in the title, kept live as on the inbox's other pages.
    const start = ctx.live.start();
    const live = {
      open: start.open,
      url: liveUrl({ status: ['new', 'acknowledged'], period: 'all' }, start.mark, { banner: false }),
      every: ctx.livePollMs,
    };
    res.type('html').send(marketPage({ principal: principalOfRequest(req), overview, live }));
  });

  router.get('/api/market', noQuery, (_req, res) => {
    res.json(overviewJson(marketOverview(store.db, input(), now()), publicUrl));
  });

  router.get('/categories/:handle', (req, res) => {
    const query = CATEGORY_QUERY.parse(req.query);
    const handle = handleParam(req.params.handle);
    const days = query.days ?? CATEGORY_DAYS;
    const view =
      handle === undefined ? undefined : categoryView(store.db, input(), handle, { now: now(), days });
    if (!view) {
      const tracked = config.categories.map((c) => c.handle);
      return notFound(
        req,
        res,
        `No such category: it is not tracked and was never snapshotted. ${
          tracked.length > 0
            ? `Tracked: ${tracked.join(', ')}.`
            : 'No category is tracked (config: categories).'
        }`,
      );
    }
    res.type('html').send(categoryPage({ principal: principalOfRequest(req), category: view, days }));
  });

  router.get('/api/categories/:handle', (req, res) => {
    const query = CATEGORY_QUERY.parse(req.query);
    const handle = handleParam(req.params.handle);
    const view =
      handle === undefined
        ? undefined
        : categoryView(store.db, input(), handle, { now: now(), days: query.days ?? CATEGORY_DAYS });
    if (!view) {
      res.status(404).json({ error: 'no such category', tracked: config.categories.map((c) => c.handle) });
      return;
    }
    res.json(categoryJson(view, publicUrl));
  });

  router.get('/api/apps/:handle/changes', (req, res) => {
    const query = CHANGES_QUERY.parse(req.query);
    const handle = handleParam(req.params.handle);
    if (handle === undefined || !listingAppKnown(store.db, input(), handle)) {
      res.status(404).json({ error: 'no such app' });
      return;
    }
    const timeline = listingTimeline(store.db, handle, {
      versions: query.limit ?? CHANGES_PAGE,
      ...(query.cursor === undefined ? {} : { beforeVersion: query.cursor }),
    });
    res.json(changesJson(handle, timeline, publicUrl));
  });

  return router;
}

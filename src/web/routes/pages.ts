/**
 * The inbox's pages and their forms: the list (`/`) with its filters and bulk form, a review's page with
 * its triage forms, an app's page, and where alerts link. Every form works without JavaScript: a change
 * redirects back (303), a refused one shows its page again with what was wrong.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { HANDLE_PATTERN } from '../../catalog/handle.js';
import { appPage } from '../../store/app-page.js';
import { appTopicsPage } from '../../store/app-topics.js';
import { neighboursInList } from '../../store/inbox.js';
import { listingKnown } from '../../store/market/listings.js';
import { reviewDetail, reviewExists, reviewRowIdOf } from '../../store/review-detail.js';
import type { TriageEventRow } from '../../store/schema.js';
import {
  applyTriage,
  applyTriageToMany,
  isTriageStatus,
  MAX_BULK,
  MAX_NOTE_LENGTH,
  statusChangesBy,
  TRIAGE_STATUSES,
  type TriageChange,
  TriageInputError,
  undoStatusChanges,
} from '../../store/triage.js';
import { listUsers } from '../../store/users.js';
import { plural } from '../../util/plural.js';
import { actorOf, type Principal, userNameOf } from '../auth.js';
import type { WebContext } from '../context.js';
import {
  type InboxQuery,
  inboxFilterOf,
  inboxPageOf,
  LIST_PAGE_QUERY,
  PAGE_VIEW,
  parseListRef,
  queryString,
  REVIEW_QUERY,
  type ViewContext,
  viewCounts,
  viewOf,
} from '../filters.js';
import { noQuery, type Problem, reviewIdParam } from '../input.js';
import { liveUrl } from '../live.js';
import { appRanks, listingTimeline, marketInputOf } from '../market-views/index.js';
import { principalOfRequest } from '../middleware/authenticate.js';
import { bodyOfType, FORM_TYPE } from '../middleware/bodies.js';
import { appPageHtml } from '../pages/app.js';
import { marketAppPage } from '../pages/app-ranks.js';
import { inboxPage, type UndoNotice } from '../pages/inbox.js';
import type { LivePage } from '../pages/layout.js';
import { messagePage } from '../pages/message.js';
import { reviewPage } from '../pages/review.js';
import { safeNext } from './login.js';

/** An app's page: its rating over this many days, its volume over these weeks, its distribution then. */
const APP_PAGE_DAYS = 90;
const APP_PAGE_WEEKS = 12;
const APP_PAGE_COMPARE_WEEKS = 4;
/** Listing versions the app's page shows; older ones through /api/apps/:handle/changes. */
const APP_PAGE_LISTING_VERSIONS = 20;

/**
 * Every form carries its CSRF token; those of a review's page also the list it was opened from (`list`,
 * as in its address), to come back to it with the same place.
 */
const formField = { _csrf: z.string().optional(), list: z.string().max(4000).optional() };

/** What a form on a review's page asks for. A status may be set "& next": then the next review opens. */
const reviewForm = z.discriminatedUnion('action', [
  z.object({
    ...formField,
    action: z.literal('status'),
    status: z.enum(TRIAGE_STATUSES),
    advance: z.enum(['next']).optional(),
  }),
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

/** The undo form: the audit rows of the change to take back, and where to go then. */
const undoForm = z.object({
  ...formField,
  events: z.string().regex(/^\d{1,15}(,\d{1,15}){0,499}$/, 'audit row numbers, as the page gave them'),
  back: z.string().optional(),
});

/** "Review 12 set to resolved.", "3 reviews set to resolved.": what a change did, for its undo notice. */
function undoText(events: readonly TriageEventRow[]): string {
  const to = new Set(events.map((e) => e.newValue));
  const which = events.length === 1 ? `Review ${events[0]?.reviewRowId}` : plural(events.length, 'review');
  return to.size === 1 ? `${which} set to ${[...to][0]}.` : `${plural(events.length, 'review')} changed.`;
}

/** `path` with `undo=` the status changes among `events` (appended to its query), for the notice there. */
function withUndo(path: string, events: readonly TriageEventRow[]): string {
  const ids = events.filter((e) => e.field === 'status').map((e) => e.id);
  if (ids.length === 0) return path;
  const [before, hash] = path.split('#', 2) as [string, string | undefined];
  return `${before}${before.includes('?') ? '&' : '?'}undo=${ids.join(',')}${hash ? `#${hash}` : ''}`;
}

/** What a refused form says: each field and what was wrong with it. */
function formProblems(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'form'}: ${i.message}`).join('; ');
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

/** A route's handler, made for one context. */
type Handler = (req: Request, res: Response) => unknown;

function userNames(ctx: WebContext): string[] {
  return listUsers(ctx.store.db).map((u) => u.name);
}

function notFound(req: Request, res: Response, message: string) {
  return res
    .status(404)
    .type('html')
    .send(messagePage('Not found', message, '/', principalOfRequest(req)));
}

/**
 * What a page needs to stay live: the open count and the store's mark now, the view it polls for, and
 * where "show" leads (layout.ts). Read before the page's own rows, so nothing added between the two
 * reads is missed: at worst it is counted as new and shown twice.
 */
function livePage(
  ctx: WebContext,
  view: InboxQuery,
  extra: { show?: string; review?: number },
  tabs = false,
): LivePage {
  const start = ctx.live.start();
  const url = liveUrl(view, start.mark, { banner: extra.show !== undefined, tabs });
  return { open: start.open, url, every: ctx.livePollMs, ...extra };
}

function viewContext(principal: Principal): ViewContext {
  return { me: userNameOf(principal), defaultView: PAGE_VIEW };
}

/** The notice of a change just made, if `events` are status changes this principal made. */
function undoNotice(
  ctx: WebContext,
  principal: Principal,
  events: readonly number[] | undefined,
  back: string,
) {
  const changes = events ? statusChangesBy(ctx.store.db, events, actorOf(principal)) : [];
  return changes.length > 0 ? { text: undoText(changes), events: changes.map((e) => e.id), back } : undefined;
}

/** The list page for a query, with what was wrong with it, or a bulk action refused above the list. */
function showList(
  ctx: WebContext,
  req: Request,
  res: Response,
  options: { query: InboxQuery; problems: readonly Problem[]; undo?: UndoNotice; bulkError?: string },
) {
  const { store, config, presenter } = ctx;
  // A filter that cannot be applied shows the form with what was valid, to correct the rest.
  const { query, problems } = options;
  const principal = principalOfRequest(req);
  const context = viewContext(principal);
  const at = ctx.now();
  const valid = problems.length === 0;
  // The live URL names the view: `/api/live` without one means All, as the API does, and would offer a
  // banner for reviews (a competitor's, a resolved one's edit) that this page's view never lists.
  const live = valid
    ? livePage(
        ctx,
        { ...query, view: viewOf(query, context) },
        { show: `/${queryString({ ...query, cursor: undefined })}` },
        true,
      )
    : undefined;
  res
    .status(!valid || options.bulkError ? 400 : 200)
    .type('html')
    .send(
      inboxPage({
        principal,
        live,
        query,
        view: viewOf(query, context),
        problems,
        ...(valid
          ? {
              page: inboxPageOf(store.db, query, config, at, context),
              counts: viewCounts(store.db, query, config, at, context),
            }
          : {}),
        now: at,
        apps: config.apps.map((a) => presenter.app(a.handle, '')),
        users: userNames(ctx),
        maxRating: config.alerts.lowRating.maxRating,
        presenter,
        ...(options.undo ? { undo: options.undo } : {}),
        ...(options.bulkError ? { bulkError: options.bulkError } : {}),
      }),
    );
}

/** `/`: the list, with the undo notice of a change just made. */
function listRoute(ctx: WebContext): Handler {
  return (req, res) => {
    const { query: read, problems } = LIST_PAGE_QUERY.read(req.query);
    const { undo, ...query } = read;
    const notice = undoNotice(ctx, principalOfRequest(req), undo, `/${queryString(query)}`);
    showList(ctx, req, res, { query, problems, ...(notice ? { undo: notice } : {}) });
  };
}

/** The undo form: takes back the status changes it names, then goes back. */
function undoRoute(ctx: WebContext): Handler {
  return (req, res) => {
    const form = undoForm.safeParse(req.body ?? {});
    const back = safeNext(form.success ? form.data.back : undefined);
    if (!form.success) {
      return res
        .status(400)
        .type('html')
        .send(
          messagePage(
            'Nothing was changed',
            `Nothing was changed: ${formProblems(form.error)}.`,
            back,
            principalOfRequest(req),
          ),
        );
    }
    const events = form.data.events.split(',').map(Number);
    undoStatusChanges(ctx.store.db, events, actorOf(principalOfRequest(req)), ctx.now());
    res.redirect(303, back);
  };
}

/** Where alerts link (render/wording.ts inboxLinks): a review by its app and marketplace id. */
function alertLinkRoute(ctx: WebContext): Handler {
  return (req, res) => {
    const { handle, reviewId } = req.params;
    const id =
      typeof handle === 'string' && typeof reviewId === 'string' && HANDLE_PATTERN.test(handle)
        ? reviewRowIdOf(ctx.store.db, handle, reviewId)
        : undefined;
    if (id === undefined) return notFound(req, res, 'No such review (yet).');
    res.redirect(303, `/reviews/${id}`);
  };
}

/** An app's page: its ratings, volume and listing over time. */
function appRoute(ctx: WebContext): Handler {
  const { store, config, presenter } = ctx;
  return (req, res) => {
    const handle = req.params.handle;
    const configured = config.apps.some((a) => a.handle === handle);
    const page =
      typeof handle === 'string' && HANDLE_PATTERN.test(handle)
        ? appPage(store.db, handle, {
            now: ctx.now(),
            days: APP_PAGE_DAYS,
            weeks: APP_PAGE_WEEKS,
            compareWeeks: APP_PAGE_COMPARE_WEEKS,
            maxRating: config.alerts.lowRating.maxRating,
          })
        : undefined;
    if (!page) return notFound(req, res, 'No such app.');
    const ranks = appRanks(store.db, marketInputOf(config), page.handle, ctx.now());
    if (!page.known && !configured) {
      // An app seen only in the market (an entrant, an app that passed one of yours) has its rank page.
      if (!ranks) return notFound(req, res, 'No such app.');
      return res
        .type('html')
        .send(marketAppPage({ principal: principalOfRequest(req), handle: page.handle, ranks }));
    }
    // Its charts count every review of the app: the banner counts them all too.
    const live = livePage(
      ctx,
      { app: page.handle, stars: [1, 2, 3, 4, 5], period: 'all' },
      { show: `/apps/${page.handle}` },
    );
    res.type('html').send(
      appPageHtml({
        principal: principalOfRequest(req),
        live,
        app: presenter.app(page.handle, page.title ?? ''),
        page,
        days: APP_PAGE_DAYS,
        compareWeeks: APP_PAGE_COMPARE_WEEKS,
        listing: listingKnown(store.db, page.handle)
          ? listingTimeline(store.db, page.handle, { versions: APP_PAGE_LISTING_VERSIONS })
          : undefined,
        ranks,
        topics: appTopicsPage(store.db, config, page.handle, ctx.now()),
      }),
    );
  };
}

/** The list a review's page belongs to: the one named, else the page's default (Open). */
function listOf(principal: Principal, list: string | undefined) {
  const query: InboxQuery = (list ? parseListRef(list) : undefined) ?? { view: PAGE_VIEW };
  const ref = queryString({ ...query, view: viewOf(query, viewContext(principal)) }).slice(1);
  return { query, ref };
}

/** The reviews before and after this one in its list, in the list's order. */
function neighboursOf(ctx: WebContext, principal: Principal, id: number, query: InboxQuery) {
  return neighboursInList(
    ctx.store.db,
    inboxFilterOf(query, ctx.config, ctx.now(), viewContext(principal)),
    id,
    { ...(query.sort ? { sort: query.sort } : {}) },
  );
}

function showReview(
  ctx: WebContext,
  req: Request,
  res: Response,
  status: number,
  options: { error?: string; list?: string | undefined; undo?: readonly number[] } = {},
) {
  const id = reviewIdParam(req.params.id);
  const detail = id === undefined ? undefined : reviewDetail(ctx.store.db, id);
  if (id === undefined || !detail) return notFound(req, res, 'No such review.');
  const principal = principalOfRequest(req);
  const list = listOf(principal, options.list);
  const here = `/reviews/${id}?${new URLSearchParams({ list: list.ref }).toString()}`;
  const undo = undoNotice(ctx, principal, options.undo, here);
  const live = livePage(ctx, {}, { review: detail.review.id });
  res
    .status(status)
    .type('html')
    .send(
      reviewPage({
        principal,
        live,
        detail,
        users: userNames(ctx),
        presenter: ctx.presenter,
        now: ctx.now(),
        list: list.ref,
        fromList: options.list !== undefined && parseListRef(options.list) !== undefined,
        neighbours: neighboursOf(ctx, principal, id, list.query),
        ...(undo ? { undo } : {}),
        ...(options.error ? { error: options.error } : {}),
      }),
    );
}

/** A review's page, in the list it was opened from. */
function reviewRoute(ctx: WebContext): Handler {
  return (req, res) => {
    const { list, undo } = REVIEW_QUERY.parse(req.query);
    showReview(ctx, req, res, 200, { list, ...(undo ? { undo } : {}) });
  };
}

/** A form of a review's page: its change, then the review again or, "& next", the next one. */
function triageRoute(ctx: WebContext): Handler {
  return (req, res) => {
    const id = reviewIdParam(req.params.id);
    if (id === undefined || !reviewExists(ctx.store.db, id)) return showReview(ctx, req, res, 404);
    const form = reviewForm.safeParse(req.body ?? {});
    const given = typeof req.body?.list === 'string' ? (req.body.list as string) : undefined;
    if (!form.success) {
      return showReview(ctx, req, res, 400, {
        error: `Nothing was changed: ${formProblems(form.error)}.`,
        list: given,
      });
    }
    const principal = principalOfRequest(req);
    let events: TriageEventRow[];
    try {
      ({ events } = applyTriage(ctx.store.db, id, formChange(form.data), actorOf(principal), ctx.now()));
    } catch (err) {
      if (err instanceof TriageInputError)
        return showReview(ctx, req, res, 400, { error: err.message, list: given });
      throw err;
    }
    // A list that is not one (edited by hand) is no reason to refuse the change: the default list instead.
    const list = listOf(principal, form.data.list);
    const listed = form.data.list ? `?${new URLSearchParams({ list: list.ref }).toString()}` : '';
    if (form.data.action === 'status' && form.data.advance === 'next') {
      // "& next": the review after this one in its list, where it stood before it left it; the list
      // itself when it was the last. Either way with the undo of this change.
      const next = neighboursOf(ctx, principal, id, list.query).next;
      return res.redirect(303, withUndo(next ? `/reviews/${next.id}${listed}` : `/?${list.ref}`, events));
    }
    res.redirect(303, `/reviews/${id}${listed}#triage`);
  };
}

/**
 * A bulk form refused: the list it came from again, with what to do above it; a dead end only when the
 * form did not come from a list.
 */
function refuseBulk(ctx: WebContext, req: Request, res: Response, back: string, message: string) {
  const path = new URL(back, 'http://inbox.invalid');
  const { query: read, problems } = LIST_PAGE_QUERY.read(Object.fromEntries(path.searchParams));
  const { undo: _undo, ...query } = read;
  if (path.pathname === '/' && problems.length === 0) {
    return showList(ctx, req, res, { query, problems, bulkError: `Nothing was changed: ${message}.` });
  }
  res
    .status(400)
    .type('html')
    .send(
      messagePage('Nothing was changed', `Nothing was changed: ${message}.`, back, principalOfRequest(req)),
    );
}

/** The list's bulk form: one change to every review ticked, then the list again with its undo. */
function bulkRoute(ctx: WebContext): Handler {
  return (req, res) => {
    const form = bulkForm.safeParse(req.body ?? {});
    const back = safeNext(form.success ? form.data.back : undefined);
    const fail = (message: string) => refuseBulk(ctx, req, res, back, message);
    if (!form.success) return fail(formProblems(form.error));
    if (form.data.ids.length === 0) return fail('select at least one review (tick its box), then apply');
    const change = bulkChange(form.data);
    if (!change) return fail(`choose what to do with the selected reviews (${BULK_FORM_HINT})`);
    let events: TriageEventRow[];
    try {
      events = applyTriageToMany(
        ctx.store.db,
        form.data.ids,
        change,
        actorOf(principalOfRequest(req)),
        ctx.now(),
      ).flatMap((r) => r.events);
    } catch (err) {
      if (err instanceof TriageInputError) return fail(err.message);
      throw err;
    }
    res.redirect(303, withUndo(back, events));
  };
}

export function pagesRouter(ctx: WebContext): express.Router {
  const router = express.Router();
  router.get('/', listRoute(ctx));
  router.post('/reviews/undo', noQuery, bodyOfType(FORM_TYPE), undoRoute(ctx));
  router.get('/apps/:handle/reviews/:reviewId', noQuery, alertLinkRoute(ctx));
  router.get('/apps/:handle', noQuery, appRoute(ctx));
  router.get('/reviews/:id', reviewRoute(ctx));
  router.post('/reviews/:id/triage', noQuery, bodyOfType(FORM_TYPE), triageRoute(ctx));
  router.post('/reviews/bulk', noQuery, bodyOfType(FORM_TYPE), bulkRoute(ctx));
  return router;
}

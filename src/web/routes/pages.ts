/**
 * The inbox's pages and their forms: the list (`/`) with its filters and bulk form, a review's page with
 * its triage forms, an app's page, and where alerts link. Every form works without JavaScript: a change
 * redirects back (303), a refused one shows its page again with what was wrong.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { HANDLE_PATTERN } from '../../catalog/handle.js';
import { appPage } from '../../store/app-page.js';
import { neighboursInList } from '../../store/inbox.js';
import { listingKnown } from '../../store/market.js';
import { listingTimeline } from '../../store/market-views.js';
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
import { principalOfRequest } from '../middleware/authenticate.js';
import { bodyOfType, FORM_TYPE } from '../middleware/bodies.js';
import { appPageHtml } from '../pages/app.js';
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

export function pagesRouter(ctx: WebContext): express.Router {
  const { store, config, presenter, now } = ctx;
  const userNames = () => listUsers(store.db).map((u) => u.name);
  const apps = () => config.apps.map((a) => presenter.app(a.handle, ''));
  const notFound = (req: Request, res: Response, message: string) =>
    res
      .status(404)
      .type('html')
      .send(messagePage('Not found', message, '/', principalOfRequest(req)));

  /**
   * What a page needs to stay live: the open count and the store's mark now, the view it polls for, and
   * where "show" leads (layout.ts). Read before the page's own rows, so nothing added between the two
   * reads is missed: at worst it is counted as new and shown twice.
   */
  const livePage = (view: InboxQuery, extra: { show?: string; review?: number }): LivePage => {
    const start = ctx.live.start();
    const url = liveUrl(view, start.mark, { banner: extra.show !== undefined });
    return { open: start.open, url, every: ctx.livePollMs, ...extra };
  };

  const router = express.Router();
  const viewContext = (principal: Principal): ViewContext => ({
    me: userNameOf(principal),
    defaultView: PAGE_VIEW,
  });

  /** The notice of a change just made, if `events` are status changes this principal made. */
  const undoNotice = (principal: Principal, events: readonly number[] | undefined, back: string) => {
    const changes = events ? statusChangesBy(store.db, events, actorOf(principal)) : [];
    return changes.length > 0
      ? { text: undoText(changes), events: changes.map((e) => e.id), back }
      : undefined;
  };

  /** The list page for a query, with what was wrong with it, or a bulk action refused above the list. */
  const showList = (
    req: Request,
    res: Response,
    options: { query: InboxQuery; problems: readonly Problem[]; undo?: UndoNotice; bulkError?: string },
  ) => {
    // A filter that cannot be applied shows the form with what was valid, to correct the rest.
    const { query, problems } = options;
    const principal = principalOfRequest(req);
    const context = viewContext(principal);
    const at = now();
    const valid = problems.length === 0;
    // The live URL names the view: `/api/live` without one means All, as the API does, and would offer a
    // banner for reviews (a competitor's, a resolved one's edit) that this page's view never lists.
    const live = valid
      ? livePage(
          { ...query, view: viewOf(query, context) },
          { show: `/${queryString({ ...query, cursor: undefined })}` },
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
          apps: apps(),
          users: userNames(),
          maxRating: config.alerts.lowRating.maxRating,
          presenter,
          ...(options.undo ? { undo: options.undo } : {}),
          ...(options.bulkError ? { bulkError: options.bulkError } : {}),
        }),
      );
  };

  router.get('/', (req, res) => {
    const { query: read, problems } = LIST_PAGE_QUERY.read(req.query);
    const { undo, ...query } = read;
    const notice = undoNotice(principalOfRequest(req), undo, `/${queryString(query)}`);
    showList(req, res, { query, problems, ...(notice ? { undo: notice } : {}) });
  });

  router.post('/reviews/undo', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
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
    undoStatusChanges(store.db, events, actorOf(principalOfRequest(req)), now());
    res.redirect(303, back);
  });

  // Where alerts link (render/wording.ts inboxLinks): a review by its app and marketplace id.
  router.get('/apps/:handle/reviews/:reviewId', noQuery, (req, res) => {
    const { handle, reviewId } = req.params;
    const id =
      typeof handle === 'string' && typeof reviewId === 'string' && HANDLE_PATTERN.test(handle)
        ? reviewRowIdOf(store.db, handle, reviewId)
        : undefined;
    if (id === undefined) return notFound(req, res, 'No such review (yet).');
    res.redirect(303, `/reviews/${id}`);
  });

  router.get('/apps/:handle', noQuery, (req, res) => {
    const handle = req.params.handle;
    const configured = config.apps.some((a) => a.handle === handle);
    const page =
      typeof handle === 'string' && HANDLE_PATTERN.test(handle)
        ? appPage(store.db, handle, {
            now: now(),
            days: APP_PAGE_DAYS,
            weeks: APP_PAGE_WEEKS,
            compareWeeks: APP_PAGE_COMPARE_WEEKS,
            maxRating: config.alerts.lowRating.maxRating,
          })
        : undefined;
    if (!page || (!page.known && !configured)) return notFound(req, res, 'No such app.');
    // Its charts count every review of the app: the banner counts them all too.
    const live = livePage(
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
      }),
    );
  });

  /** The list a review's page belongs to: the one named, else the page's default (Open). */
  const listOf = (principal: Principal, list: string | undefined) => {
    const query: InboxQuery = (list ? parseListRef(list) : undefined) ?? { view: PAGE_VIEW };
    const ref = queryString({ ...query, view: viewOf(query, viewContext(principal)) }).slice(1);
    return { query, ref };
  };

  /** The reviews before and after this one in its list, in the list's order. */
  const neighboursOf = (principal: Principal, id: number, query: InboxQuery) =>
    neighboursInList(store.db, inboxFilterOf(query, config, now(), viewContext(principal)), id, {
      ...(query.sort ? { sort: query.sort } : {}),
    });

  const showReview = (
    req: Request,
    res: Response,
    status: number,
    options: { error?: string; list?: string | undefined; undo?: readonly number[] } = {},
  ) => {
    const id = reviewIdParam(req.params.id);
    const detail = id === undefined ? undefined : reviewDetail(store.db, id);
    if (id === undefined || !detail) return notFound(req, res, 'No such review.');
    const principal = principalOfRequest(req);
    const list = listOf(principal, options.list);
    const here = `/reviews/${id}?${new URLSearchParams({ list: list.ref }).toString()}`;
    const undo = undoNotice(principal, options.undo, here);
    const live = livePage({}, { review: detail.review.id });
    res
      .status(status)
      .type('html')
      .send(
        reviewPage({
          principal,
          live,
          detail,
          users: userNames(),
          presenter,
          now: now(),
          list: list.ref,
          fromList: options.list !== undefined && parseListRef(options.list) !== undefined,
          neighbours: neighboursOf(principal, id, list.query),
          ...(undo ? { undo } : {}),
          ...(options.error ? { error: options.error } : {}),
        }),
      );
  };

  router.get('/reviews/:id', (req, res) => {
    const { list, undo } = REVIEW_QUERY.parse(req.query);
    showReview(req, res, 200, { list, ...(undo ? { undo } : {}) });
  });

  router.post('/reviews/:id/triage', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
    const id = reviewIdParam(req.params.id);
    if (id === undefined || !reviewExists(store.db, id)) return showReview(req, res, 404);
    const form = reviewForm.safeParse(req.body ?? {});
    const given = typeof req.body?.list === 'string' ? (req.body.list as string) : undefined;
    if (!form.success) {
      return showReview(req, res, 400, {
        error: `Nothing was changed: ${formProblems(form.error)}.`,
        list: given,
      });
    }
    const principal = principalOfRequest(req);
    let events: TriageEventRow[];
    try {
      ({ events } = applyTriage(store.db, id, formChange(form.data), actorOf(principal), now()));
    } catch (err) {
      if (err instanceof TriageInputError)
        return showReview(req, res, 400, { error: err.message, list: given });
      throw err;
    }
    // A list that is not one (edited by hand) is no reason to refuse the change: the default list instead.
    const list = listOf(principal, form.data.list);
    const listed = form.data.list ? `?${new URLSearchParams({ list: list.ref }).toString()}` : '';
    if (form.data.action === 'status' && form.data.advance === 'next') {
      // "& next": the review after this one in its list, where it stood before it left it; the list
      // itself when it was the last. Either way with the undo of this change.
      const next = neighboursOf(principal, id, list.query).next;
      return res.redirect(303, withUndo(next ? `/reviews/${next.id}${listed}` : `/?${list.ref}`, events));
    }
    res.redirect(303, `/reviews/${id}${listed}#triage`);
  });

  router.post('/reviews/bulk', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
    const form = bulkForm.safeParse(req.body ?? {});
    const back = safeNext(form.success ? form.data.back : undefined);
    // Refused: the list it came from again, with what to do above it; a dead end only when the form did
    // not come from a list.
    const fail = (message: string) => {
      const path = new URL(back, 'http://inbox.invalid');
      const { query: read, problems } = LIST_PAGE_QUERY.read(Object.fromEntries(path.searchParams));
      const { undo: _undo, ...query } = read;
      if (path.pathname === '/' && problems.length === 0) {
        return showList(req, res, { query, problems, bulkError: `Nothing was changed: ${message}.` });
      }
      res
        .status(400)
        .type('html')
        .send(
          messagePage(
            'Nothing was changed',
            `Nothing was changed: ${message}.`,
            back,
            principalOfRequest(req),
          ),
        );
    };
    if (!form.success) return fail(formProblems(form.error));
    if (form.data.ids.length === 0) return fail('select at least one review (tick its box), then apply');
    const change = bulkChange(form.data);
    if (!change) return fail(`choose what to do with the selected reviews (${BULK_FORM_HINT})`);
    let events: TriageEventRow[];
    try {
      events = applyTriageToMany(
        store.db,
        form.data.ids,
        change,
        actorOf(principalOfRequest(req)),
        now(),
      ).flatMap((r) => r.events);
    } catch (err) {
      if (err instanceof TriageInputError) return fail(err.message);
      throw err;
    }
    res.redirect(303, withUndo(back, events));
  });

  return router;
}

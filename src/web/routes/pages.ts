/**
 * The inbox's pages and their forms: the list (`/`) with its filters and bulk form, a review's page with
 * its triage forms, an app's page, and where alerts link. Every form works without JavaScript: a change
 * redirects back (303), a refused one shows its page again with what was wrong.
 */
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { HANDLE_PATTERN } from '../../catalog/handle.js';
import { appPage } from '../../store/app-page.js';
import { listingKnown } from '../../store/market.js';
import { listingTimeline } from '../../store/market-views.js';
import { reviewDetail, reviewExists, reviewRowIdOf } from '../../store/review-detail.js';
import {
  applyTriage,
  applyTriageToMany,
  isTriageStatus,
  MAX_BULK,
  MAX_NOTE_LENGTH,
  TRIAGE_STATUSES,
  type TriageChange,
  TriageInputError,
} from '../../store/triage.js';
import { listUsers } from '../../store/users.js';
import { actorOf } from '../auth.js';
import type { WebContext } from '../context.js';
import { INBOX_QUERY, type InboxQuery, inboxPageOf, queryString } from '../filters.js';
import { noQuery, reviewIdParam } from '../input.js';
import { liveUrl } from '../live.js';
import { principalOfRequest } from '../middleware/authenticate.js';
import { bodyOfType, FORM_TYPE } from '../middleware/bodies.js';
import { appPageHtml } from '../pages/app.js';
import { inboxPage } from '../pages/inbox.js';
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

const formField = { _csrf: z.string().optional() };

/** What a form on a review's page asks for. */
const reviewForm = z.discriminatedUnion('action', [
  z.object({ ...formField, action: z.literal('status'), status: z.enum(TRIAGE_STATUSES) }),
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

  router.get('/', (req, res) => {
    // A filter that cannot be applied shows the form with what was valid, to correct the rest.
    const { query, problems } = INBOX_QUERY.read(req.query);
    const live =
      problems.length > 0
        ? undefined
        : livePage(query, { show: `/${queryString({ ...query, cursor: undefined })}` });
    res
      .status(problems.length > 0 ? 400 : 200)
      .type('html')
      .send(
        inboxPage({
          principal: principalOfRequest(req),
          live,
          query,
          problems,
          ...(problems.length > 0 ? {} : { page: inboxPageOf(store.db, query, config, now()) }),
          apps: apps(),
          users: userNames(),
          maxRating: config.alerts.lowRating.maxRating,
          presenter,
        }),
      );
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

  const showReview = (req: Request, res: Response, status: number, error?: string) => {
    const id = reviewIdParam(req.params.id);
    const detail = id === undefined ? undefined : reviewDetail(store.db, id);
    if (!detail) return notFound(req, res, 'No such review.');
    const live = livePage({}, { review: detail.review.id });
    res
      .status(status)
      .type('html')
      .send(
        reviewPage({
          principal: principalOfRequest(req),
          live,
          detail,
          users: userNames(),
          presenter,
          ...(error ? { error } : {}),
        }),
      );
  };

  router.get('/reviews/:id', noQuery, (req, res) => showReview(req, res, 200));

  router.post('/reviews/:id/triage', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
    const id = reviewIdParam(req.params.id);
    if (id === undefined || !reviewExists(store.db, id)) return showReview(req, res, 404);
    const form = reviewForm.safeParse(req.body ?? {});
    if (!form.success) {
      return showReview(req, res, 400, `Nothing was changed: ${formProblems(form.error)}.`);
    }
    try {
      applyTriage(store.db, id, formChange(form.data), actorOf(principalOfRequest(req)), now());
    } catch (err) {
      if (err instanceof TriageInputError) return showReview(req, res, 400, err.message);
      throw err;
    }
    res.redirect(303, `/reviews/${id}#triage`);
  });

  router.post('/reviews/bulk', noQuery, bodyOfType(FORM_TYPE), (req, res) => {
    const form = bulkForm.safeParse(req.body ?? {});
    const back = safeNext(form.success ? form.data.back : undefined);
    const fail = (message: string) =>
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
    if (!form.success) return fail(formProblems(form.error));
    const change = bulkChange(form.data);
    if (!change) return fail(`choose what to do with the selected reviews (${BULK_FORM_HINT})`);
    try {
      applyTriageToMany(store.db, form.data.ids, change, actorOf(principalOfRequest(req)), now());
    } catch (err) {
      if (err instanceof TriageInputError) return fail(err.message);
      throw err;
    }
    res.redirect(303, back);
  });

  return router;
}

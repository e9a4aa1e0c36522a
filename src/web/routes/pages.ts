/**
 * The inbox's pages and their forms: the list (`/`) with its filters and bulk form, a review's page with
 * its triage forms, an app's page, and where alerts link. Every form works without JavaScript: a change
 * redirects back (303), a refused one shows its page again with what was wrong.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { HANDLE_PATTERN } from '../../catalog/handle.js';
import { appPage } from '../../store/app-page.js';
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
import { INBOX_QUERY, inboxPageOf } from '../filters.js';
import { noQuery, reviewIdParam } from '../input.js';
import { principalOfRequest } from '../middleware/authenticate.js';
import { bodyOfType, FORM_TYPE } from '../middleware/bodies.js';
import { appPageHtml } from '../pages/app.js';
import { inboxPage } from '../pages/inbox.js';
import { messagePage } from '../pages/message.js';
import { reviewPage } from '../pages/review.js';
import { safeNext } from './login.js';

/** An app's page: its rating over this many days, its volume over these weeks, its distribution then. */
const APP_PAGE_DAYS = 90;
const APP_PAGE_WEEKS = 12;
const APP_PAGE_COMPARE_WEEKS = 4;

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

/** The inbox's pages, each route's handler named below. */
export function pagesRouter(ctx: WebContext): express.Router {
  const router = express.Router();
  router.get('/', listPage(ctx));
  // Where alerts link (render/wording.ts inboxLinks): a review by its app and marketplace id.
  router.get('/apps/:handle/reviews/:reviewId', noQuery, reviewLink(ctx));
  router.get('/apps/:handle', noQuery, appPageOf(ctx));
  router.get('/reviews/:id', noQuery, (req, res) => showReview(ctx, req, res, 200));
  router.post('/reviews/:id/triage', noQuery, bodyOfType(FORM_TYPE), triageReview(ctx));
  router.post('/reviews/bulk', noQuery, bodyOfType(FORM_TYPE), bulkTriage(ctx));
  return router;
}

const userNames = (ctx: WebContext) => listUsers(ctx.store.db).map((u) => u.name);

function notFound(req: Request, res: Response, message: string): void {
  res
    .status(404)
    .type('html')
    .send(messagePage('Not found', message, '/', principalOfRequest(req)));
}

/** The list (`/`) with its filters; a filter that cannot be applied shows the form with what was valid. */
function listPage(ctx: WebContext): RequestHandler {
  const { store, config, presenter, now } = ctx;
  return (req, res) => {
    const { query, problems } = INBOX_QUERY.read(req.query);
    res
      .status(problems.length > 0 ? 400 : 200)
      .type('html')
      .send(
        inboxPage({
          principal: principalOfRequest(req),
          query,
          problems,
          ...(problems.length > 0 ? {} : { page: inboxPageOf(store.db, query, config, now()) }),
          apps: config.apps.map((a) => presenter.app(a.handle, '')),
          users: userNames(ctx),
          maxRating: config.alerts.lowRating.maxRating,
          presenter,
        }),
      );
  };
}

/** A review by its app and marketplace id: a redirect to its page. */
function reviewLink(ctx: WebContext): RequestHandler {
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

/** An app's page: one the store knows, or one the config watches (before its first poll). */
function appPageOf(ctx: WebContext): RequestHandler {
  const { store, config, presenter, now } = ctx;
  return (req, res) => {
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
    res.type('html').send(
      appPageHtml({
        principal: principalOfRequest(req),
        app: presenter.app(page.handle, page.title ?? ''),
        page,
        days: APP_PAGE_DAYS,
        compareWeeks: APP_PAGE_COMPARE_WEEKS,
      }),
    );
  };
}

/** A review's page, with `error` above its forms when one was refused. */
function showReview(ctx: WebContext, req: Request, res: Response, status: number, error?: string): void {
  const id = reviewIdParam(req.params.id);
  const detail = id === undefined ? undefined : reviewDetail(ctx.store.db, id);
  if (!detail) {
    notFound(req, res, 'No such review.');
    return;
  }
  res
    .status(status)
    .type('html')
    .send(
      reviewPage({
        principal: principalOfRequest(req),
        detail,
        users: userNames(ctx),
        presenter: ctx.presenter,
        ...(error ? { error } : {}),
      }),
    );
}

/** A form of a review's page: the change, then back to the page (303), or the page with what was wrong. */
function triageReview(ctx: WebContext): RequestHandler {
  const { store, now } = ctx;
  return (req, res) => {
    const id = reviewIdParam(req.params.id);
    if (id === undefined || !reviewExists(store.db, id)) return showReview(ctx, req, res, 404);
    const form = reviewForm.safeParse(req.body ?? {});
    if (!form.success) {
      return showReview(ctx, req, res, 400, `Nothing was changed: ${formProblems(form.error)}.`);
    }
    try {
      applyTriage(store.db, id, formChange(form.data), actorOf(principalOfRequest(req)), now());
    } catch (err) {
      if (err instanceof TriageInputError) return showReview(ctx, req, res, 400, err.message);
      throw err;
    }
    res.redirect(303, `/reviews/${id}#triage`);
  };
}

/** The list's bulk form: one change to every review ticked, then back to the list. */
function bulkTriage(ctx: WebContext): RequestHandler {
  const { store, now } = ctx;
  return (req, res) => {
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
  };
}

/**
 * The JSON API under /api/ (documented in the README): the list with the inbox's filters, a review with
 * everything about it, and triage changes to one review or to several, all or nothing. Bodies are JSON,
 * checked with zod; what is refused is answered by middleware/errors.ts.
 */
import express from 'express';
import { z } from 'zod';
import { reviewDetail, reviewExists } from '../../store/review-detail.js';
import {
  applyTriage,
  applyTriageToMany,
  MAX_BULK,
  MAX_NOTE_LENGTH,
  TRIAGE_STATUSES,
  type TriageChange,
} from '../../store/triage.js';
import { detailJson, eventJson, rowJson, triageJson } from '../api-json.js';
import { actorOf, userNameOf } from '../auth.js';
import type { WebContext } from '../context.js';
import { DATA_VIEW, INBOX_QUERY, inboxPageOf } from '../filters.js';
import { noQuery, parseBody, reviewIdParam } from '../input.js';
import { principalOfRequest } from '../middleware/authenticate.js';
import { bodyOfType, JSON_TYPE } from '../middleware/bodies.js';

const changeFields = {
  status: z.enum(TRIAGE_STATUSES).optional(),
  assignee: z.string().min(1).nullable().optional(),
  addTags: z.array(z.string()).max(20).optional(),
  removeTags: z.array(z.string()).max(20).optional(),
  note: z.string().max(MAX_NOTE_LENGTH).optional(),
};

const triageBody = z
  .strictObject(changeFields)
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to change' });

const bulkBody = z
  .strictObject({ ids: z.array(z.number().int().positive()).min(1).max(MAX_BULK), ...changeFields })
  .refine((b) => Object.keys(b).length > 1, { message: 'nothing to change' });

type ChangeFields = z.infer<typeof triageBody>;

/** The store's change from the API's fields (zod's optional keys may be present as undefined). */
function changeOf(fields: ChangeFields): TriageChange {
  const { status, assignee, addTags, removeTags, note } = fields;
  return {
    ...(status ? { status } : {}),
    ...(assignee !== undefined ? { assignee } : {}),
    ...(addTags ? { addTags } : {}),
    ...(removeTags ? { removeTags } : {}),
    ...(note !== undefined ? { note } : {}),
  };
}

export function apiRouter(ctx: WebContext): express.Router {
  const { store, config, presenter, publicUrl, now } = ctx;
  const router = express.Router();

  router.get('/api/reviews', (req, res) => {
    const page = inboxPageOf(store.db, INBOX_QUERY.parse(req.query), config, now(), {
      me: userNameOf(principalOfRequest(req)),
      defaultView: DATA_VIEW,
    });
    res.json({
      reviews: page.rows.map((r) => rowJson(r, presenter, publicUrl)),
      next: page.next ?? null,
    });
  });

  router.post('/api/reviews/triage', noQuery, bodyOfType(JSON_TYPE), (req, res) => {
    const { ids, ...rest } = parseBody(
      bulkBody,
      req.body,
      'send JSON: {"ids": [1, 2], and what to change as for one review}',
    );
    const results = applyTriageToMany(store.db, ids, changeOf(rest), actorOf(principalOfRequest(req)), now());
    res.json({
      results: results.map((r) => ({
        id: r.reviewRowId,
        triage: triageJson(r.state),
        events: r.events.map(eventJson),
      })),
    });
  });

  router.get('/api/reviews/:id', noQuery, (req, res) => {
    const id = reviewIdParam(req.params.id);
    const detail = id === undefined ? undefined : reviewDetail(store.db, id);
    if (!detail) {
      res.status(404).json({ error: 'no such review' });
      return;
    }
    res.json(detailJson(detail, presenter, publicUrl));
  });

  router.post('/api/reviews/:id/triage', noQuery, bodyOfType(JSON_TYPE), (req, res) => {
    const id = reviewIdParam(req.params.id);
    if (id === undefined || !reviewExists(store.db, id)) {
      res.status(404).json({ error: 'no such review' });
      return;
    }
    const change = parseBody(
      triageBody,
      req.body,
      'send JSON: {"status"?, "assignee"? (null unassigns), "addTags"?, "removeTags"?, "note"?}',
    );
    const result = applyTriage(store.db, id, changeOf(change), actorOf(principalOfRequest(req)), now());
    res.json({ triage: triageJson(result.state), events: result.events.map(eventJson) });
  });

  return router;
}

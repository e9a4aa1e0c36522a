/**
 * What reviewers talk about: `/topics` (the page) and `/api/topics` (its JSON), for every watched app or
 * one (`app=`), over the last 7, 30 or 90 days (`period=`) or since a moment (`since=`, the API's).
 */
import express from 'express';
import { z } from 'zod';
import { HANDLE_PATTERN } from '../../catalog/handle.js';
import { overviewJson, topicsOverview } from '../../store/topics-overview.js';
import type { WebContext } from '../context.js';
import { defineQuery, param } from '../input.js';
import { principalOfRequest } from '../middleware/authenticate.js';
import { TOPIC_PERIODS, type TopicPeriodName, topicsPage } from '../pages/topics.js';

const DAY_MS = 86_400_000;
const DAYS: Record<TopicPeriodName, number> = { '7d': 7, '30d': 30, '90d': 90 };

export const TOPICS_QUERY = defineQuery({
  period: param(`one of ${TOPIC_PERIODS.join(', ')}`, z.enum(TOPIC_PERIODS)),
  app: param('the handle of a watched app', z.string().max(200).regex(HANDLE_PATTERN)),
  since: param(
    'a date or moment like 2026-11-01 or 2026-11-01T09:00:00Z, in the past',
    z.string().refine((v) => !Number.isNaN(Date.parse(v))),
  ),
});

export function topicsRouter(ctx: WebContext): express.Router {
  const { store, config, now } = ctx;
  const router = express.Router();

  const overviewOf = (query: ReturnType<typeof TOPICS_QUERY.parse>) => {
    const to = now();
    const period = query.period ?? '7d';
    const from = query.since ? new Date(query.since) : new Date(to.getTime() - DAYS[period] * DAY_MS);
    const handles = query.app ? [query.app] : config.apps.map((a) => a.handle);
    return { period, overview: topicsOverview(store.db, config, { from, to }, handles) };
  };

  router.get('/topics', (req, res) => {
    const { period, overview } = overviewOf(TOPICS_QUERY.parse(req.query));
    res.type('html').send(topicsPage({ principal: principalOfRequest(req), overview, period }));
  });

  router.get('/api/topics', (req, res) => {
    res.json(overviewJson(overviewOf(TOPICS_QUERY.parse(req.query)).overview));
  });

  return router;
}

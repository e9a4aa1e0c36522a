/**
 * The stylesheet, the script and the icon, for anyone (the login page needs the stylesheet, and browsers
 * ask for the icon on their own). The stylesheet and script are cached for good; the icon's count comes
 * from its URL alone (`/favicon.svg?open=12`, favicon.ts), so it reads nothing and can be cached too.
 */
import express from 'express';
import { z } from 'zod';
import { ASSETS } from '../assets.js';
import { faviconIco, faviconSvg } from '../favicon.js';
import { defineQuery, noQuery, param } from '../input.js';

/** `/favicon.svg?open=N`: the count to draw, a whole number. */
export const FAVICON_QUERY = defineQuery({
  open: param(
    'a whole number of open reviews, such as 12',
    z
      .string()
      .regex(/^\d{1,9}$/)
      .transform(Number),
  ),
});

const ICON_CACHE = 'public, max-age=86400';

export function assetsRouter(): express.Router {
  const router = express.Router();
  for (const asset of ASSETS) {
    router.get(asset.path, (_req, res) => {
      // Their URLs change with their content: a browser may keep them as long as it likes.
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.type(asset.contentType).send(asset.body);
    });
  }
  const ico = faviconIco();
  router.get('/favicon.ico', noQuery, (_req, res) => {
    res.setHeader('Cache-Control', ICON_CACHE);
    res.type('image/x-icon').send(ico);
  });
  router.get('/favicon.svg', (req, res) => {
    const { open } = FAVICON_QUERY.parse(req.query);
    res.setHeader('Cache-Control', ICON_CACHE);
    res.type('image/svg+xml').send(faviconSvg(open ?? 0));
  });
  return router;
}

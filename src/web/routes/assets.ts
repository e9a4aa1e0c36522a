/** The stylesheet and the script, for anyone (the login page needs the stylesheet), cached for good. */
import express from 'express';
import { ASSETS } from '../assets.js';

export function assetsRouter(): express.Router {
  const router = express.Router();
  for (const asset of ASSETS) {
    router.get(asset.path, (_req, res) => {
      // Their URLs change with their content: a browser may keep them as long as it likes.
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.type(asset.contentType).send(asset.body);
    });
  }
  return router;
}

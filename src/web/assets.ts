/**
 * The inbox's stylesheet and script, served by the worker itself (no CDN, no inline style or script: the
 * Content-Security-Policy allows only what comes from the worker). They are real files in static/, beside
 * this module in src/ and in dist/ (`npm run build` copies them), read once at start. Their URLs carry a
 * hash of their content, so browsers may cache them for good.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface Asset {
  path: string;
  contentType: string;
  body: string;
}

function asset(file: string, contentType: string): Asset {
  const body = readFileSync(new URL(`./static/${file}`, import.meta.url), 'utf8');
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  return { path: `/assets/${file.slice(0, dot)}.${hash}${file.slice(dot)}`, contentType, body };
}

export const STYLESHEET = asset('inbox.css', 'text/css; charset=utf-8');

export const SCRIPT_FILE = asset('inbox.js', 'text/javascript; charset=utf-8');

export const ASSETS: readonly Asset[] = [STYLESHEET, SCRIPT_FILE];

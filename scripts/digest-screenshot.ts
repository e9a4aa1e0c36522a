/**
 * Renders the sample weekly digest and takes a screenshot of it with headless Chromium (Debian's
 * `chromium` package) for the README: `npx tsx scripts/digest-screenshot.ts [out.png]`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { renderDigestEmail } from '../src/digest/index.js';
import { sampleDigestData } from '../src/digest/sample.js';

const out = resolve(process.argv[2] ?? 'docs/digest.png');
const dir = mkdtempSync(join(tmpdir(), 'reviewwatch-shot-'));
try {
  const { subject, html } = renderDigestEmail(sampleDigestData());
  const page = join(dir, 'digest.html');
  // A mail client shows the subject above the body; so does the screenshot.
  writeFileSync(
    page,
    `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#e9ecef">` +
      `<div style="font:600 15px sans-serif;padding:12px 16px;background:#fff;border-bottom:1px solid #ccc">` +
      `${subject.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</div>${html}</body>`,
  );
  execFileSync(
    process.env.CHROMIUM ?? '/usr/bin/chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${join(dir, 'profile')}`,
      '--window-size=760,2400',
      `--screenshot=${out}`,
      `file://${page}`,
    ],
    { stdio: 'ignore' },
  );
  console.log(`wrote ${out}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

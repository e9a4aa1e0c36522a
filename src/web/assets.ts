/**
 * The inbox's stylesheet and script, served as files by the worker itself (no CDN, no inline style or
 * script: the Content-Security-Policy allows only what comes from the worker). Kept in a module rather
 * than as .css and .js files so the TypeScript build ships them without a copy step. Their URLs carry a
 * hash of their content, so browsers may cache them for good.
 */
import { createHash } from 'node:crypto';

const CSS = `
:root { color-scheme: light dark; --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #fff; --soft: #f4f6f9;
  --accent: #2456c8; --critical: #b3261e; --high: #c25e00; --medium: #8a6d00; --low: #52606d; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e9ef; --muted: #a3acbb; --line: #394150; --bg: #151922; --soft: #1e2430; --accent: #8fb0ff;
    --critical: #ff8a80; --high: #ffb366; --medium: #e8cf5a; --low: #aab4c3; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
header.top { display: flex; gap: 1rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
header.top .who { margin-left: auto; color: var(--muted); display: flex; gap: .6rem; align-items: center; }
main { padding: 1rem 1.2rem 3rem; max-width: 80rem; }
h1 { font-size: 1.3rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; }
form.filters { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: flex-end; padding: .8rem; background: var(--soft);
  border: 1px solid var(--line); border-radius: 6px; margin-bottom: 1rem; }
form.filters fieldset { border: 0; padding: 0; margin: 0; display: flex; gap: .4rem; align-items: center; }
form.filters legend, form.filters label.field { font-size: .8rem; color: var(--muted); display: block; }
label.field { display: flex; flex-direction: column; gap: .15rem; }
input, select, textarea, button { font: inherit; color: inherit; }
input[type=text], input[type=search], input[type=date], input[type=password], select, textarea {
  padding: .3rem .45rem; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); }
button { padding: .3rem .8rem; border: 1px solid var(--line); border-radius: 4px; background: var(--soft); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--bg); }
button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 1px; }
table.inbox { width: 100%; border-collapse: collapse; }
table.inbox th { text-align: left; font-size: .8rem; color: var(--muted); font-weight: 600; border-bottom: 1px solid var(--line); padding: .35rem .4rem; }
table.inbox td { border-bottom: 1px solid var(--line); padding: .5rem .4rem; vertical-align: top; }
/* A removed review stays readable (no fading): the mark says what happened to it. */
.removed-mark { color: var(--high); font-weight: 600; }
table.inbox tr.current td { background: var(--soft); }
table.inbox tr.current td:first-child { box-shadow: inset 3px 0 0 var(--accent); }
.stars { color: #e0a200; white-space: nowrap; letter-spacing: .05em; }
.muted { color: var(--muted); }
.small { font-size: .85rem; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; unicode-bidi: plaintext; }
.excerpt { display: block; overflow-wrap: anywhere; unicode-bidi: plaintext; }
.badge { display: inline-block; padding: 0 .4rem; border-radius: 3px; font-size: .78rem; font-weight: 600; border: 1px solid currentColor; }
.p-critical { color: var(--critical); } .p-high { color: var(--high); } .p-medium { color: var(--medium); } .p-low { color: var(--low); }
.status { font-size: .8rem; font-weight: 600; text-transform: uppercase; letter-spacing: .03em; }
.tag { display: inline-block; background: var(--soft); border: 1px solid var(--line); border-radius: 10px; padding: 0 .5rem; font-size: .78rem; margin: 0 .2rem .2rem 0; }
.tag.auto { border-style: dashed; }
ul.reasons { margin: .2rem 0 0; padding-left: 1rem; font-size: .8rem; color: var(--muted); }
form.bulk { display: flex; flex-wrap: wrap; gap: .6rem; align-items: flex-end; margin: 0 0 .6rem; }
svg.chart { width: 100%; max-width: 44rem; height: auto; display: block; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .axis { fill: var(--muted); font-size: 11px; }
svg.chart polyline { fill: none; stroke-width: 2; }
svg.chart .average { stroke: var(--accent); }
svg.chart .displayed { stroke: var(--muted); stroke-dasharray: 4 3; stroke-width: 1.5; }
svg.chart .marker { stroke: var(--critical); stroke-width: 1.5; stroke-dasharray: 2 2; }
svg.chart .m-incident { stroke: var(--high); }
svg.chart .before { fill: var(--muted); opacity: .5; }
.s1 { fill: #c62828; } .s2 { fill: #ef6c00; } .s3 { fill: #f9a825; } .s4 { fill: #7cb342; } .s5 { fill: #2e7d32; }
.legend .key { display: inline-block; width: 1.2rem; height: 0; border-top: 2px solid var(--accent); vertical-align: middle; margin-left: .6rem; }
.legend .key.displayed { border-top: 2px dashed var(--muted); }
.legend .key.marker { border-top: 2px dotted var(--critical); }
nav.pages { display: flex; gap: 1rem; margin-top: 1rem; }
.review { border: 1px solid var(--line); border-radius: 6px; padding: 1rem; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin: 1rem 0; }
.actions form { margin: 0; }
form.inline { display: inline-flex; gap: .1rem; align-items: center; margin: 0 .3rem .3rem 0; }
form.inline button { padding: 0 .35rem; }
.actions button[aria-pressed=true] { background: var(--accent); color: var(--bg); border-color: var(--accent); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; }
.panel { border: 1px solid var(--line); border-radius: 6px; padding: .8rem; }
.panel h2 { margin-top: 0; }
.review { margin-bottom: 1rem; }
.panel form { display: flex; gap: .4rem; flex-wrap: wrap; align-items: flex-end; margin: .4rem 0; }
ol.trail { list-style: none; padding: 0; margin: 0; font-size: .88rem; }
ol.trail li { padding: .3rem 0; border-bottom: 1px solid var(--line); }
.note { padding: .5rem 0; border-bottom: 1px solid var(--line); }
.error { color: var(--critical); font-weight: 600; }
.login { max-width: 22rem; margin: 4rem auto; padding: 1.5rem; border: 1px solid var(--line); border-radius: 8px; }
.login form { display: flex; flex-direction: column; gap: .8rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/**
 * Keyboard shortcuts, and nothing the pages need to work: j/k move through the list, a/r/i set the status
 * of the current review (through the JSON API, with the page's CSRF token), x selects it for a bulk
 * action, / jumps to the search. On a review's page a/r/i press its status buttons. Keys typed into a
 * field are left alone.
 */
const SCRIPT = `'use strict';
(function () {
  var STATUS = { a: 'acknowledged', r: 'resolved', i: 'ignored' };
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.getAttribute('content') : null;
  var live = document.getElementById('live');
  var rows = Array.prototype.slice.call(document.querySelectorAll('table.inbox tbody tr[data-review-id]'));
  var current = -1;

  function say(text) { if (live) live.textContent = text; }

  function select(index) {
    if (rows.length === 0) return;
    index = Math.max(0, Math.min(rows.length - 1, index));
    if (current >= 0 && rows[current]) rows[current].classList.remove('current');
    current = index;
    var row = rows[current];
    row.classList.add('current');
    var link = row.querySelector('a.excerpt');
    if (link) link.focus();
    row.scrollIntoView({ block: 'nearest' });
  }

  function setStatus(row, status) {
    var id = row.getAttribute('data-review-id');
    var headers = { 'content-type': 'application/json' };
    if (csrf) headers['x-csrf-token'] = csrf;
    fetch('/api/reviews/' + id + '/triage', {
      method: 'POST', headers: headers, credentials: 'same-origin', body: JSON.stringify({ status: status })
    }).then(function (res) {
      if (!res.ok) throw new Error('HTTP ' + res.status);
      return res.json();
    }).then(function (body) {
      var cell = row.querySelector('.status');
      if (cell) cell.textContent = body.triage.status;
      say('Review ' + id + ' is now ' + body.triage.status + '.');
    }).catch(function (err) {
      say('Could not set the status: ' + err.message + '. Reload the page and try again.');
    });
  }

  document.addEventListener('keydown', function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target && target.closest && target.closest('input, textarea, select, [contenteditable]')) return;
    var key = event.key;
    if (key === '/') {
      var search = document.getElementById('q');
      if (search) { event.preventDefault(); search.focus(); search.select(); }
      return;
    }
    if (rows.length > 0) {
      if (key === 'j') { event.preventDefault(); select(current + 1); return; }
      if (key === 'k') { event.preventDefault(); select(current < 0 ? 0 : current - 1); return; }
      if (current < 0) return;
      if (STATUS[key]) { event.preventDefault(); setStatus(rows[current], STATUS[key]); return; }
      if (key === 'x') {
        var box = rows[current].querySelector('input[name="ids"]');
        if (box) { event.preventDefault(); box.checked = !box.checked; }
      }
      return;
    }
    if (STATUS[key]) {
      var button = document.querySelector('#triage button[data-status="' + STATUS[key] + '"]');
      if (button) { event.preventDefault(); button.click(); }
    }
  });
})();
`;

export interface Asset {
  path: string;
  contentType: string;
  body: string;
}

function asset(name: string, extension: string, contentType: string, body: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/assets/${name}.${hash}.${extension}`, contentType, body };
}

export const STYLESHEET = asset('inbox', 'css', 'text/css; charset=utf-8', CSS.trim());

export const SCRIPT_FILE = asset('inbox', 'js', 'text/javascript; charset=utf-8', SCRIPT.trim());

export const ASSETS: readonly Asset[] = [STYLESHEET, SCRIPT_FILE];

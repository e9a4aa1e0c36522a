/*
 * The inbox's script: keyboard shortcuts and live updates, and nothing the pages need to work. j/k move
 * through the list, a/r/i set the status of the current review (through the JSON API, with the page's CSRF
 * token), x selects it for a bulk action, / jumps to the search. On a review's page a/r/i press its status
 * buttons. Keys typed into a field are left alone. A page that says where to poll (`data-live-url`, see
 * web/live.ts) asks there every few seconds and keeps its title and icon on the open count, updates the
 * status of rows someone triaged, and offers new reviews in a banner that covers nothing it would move.
 * Served as it is (no build step), to browsers that run ES2017.
 */
(() => {
  // biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (the page loads it without type="module")
  'use strict';
  const STATUS = { a: 'acknowledged', r: 'resolved', i: 'ignored' };
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? null;
  const live = document.getElementById('live');
  const rows = Array.from(document.querySelectorAll('table.inbox tbody tr[data-review-id]'));
  let current = -1;

  function say(text) {
    if (live) live.textContent = text;
  }

  function select(index) {
    if (rows.length === 0) return;
    rows[current]?.classList.remove('current');
    current = Math.max(0, Math.min(rows.length - 1, index));
    const row = rows[current];
    row.classList.add('current');
    row.querySelector('a.excerpt')?.focus();
    row.scrollIntoView({ block: 'nearest' });
  }

  function setStatus(row, status) {
    const id = row.getAttribute('data-review-id');
    const headers = { 'content-type': 'application/json' };
    if (csrf) headers['x-csrf-token'] = csrf;
    fetch(`/api/reviews/${id}/triage`, {
      method: 'POST',
      headers,
      credentials: 'same-origin',
      body: JSON.stringify({ status }),
    })
      .then((res) => {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        return res.json();
      })
      .then((body) => {
        const cell = row.querySelector('.status');
        if (cell) cell.textContent = body.triage.status;
        say(`Review ${id} is now ${body.triage.status}.`);
      })
      .catch((err) => {
        say(`Could not set the status: ${err.message}. Reload the page and try again.`);
      });
  }

  function onListKey(event, key) {
    if (key === 'j') {
      event.preventDefault();
      select(current + 1);
    } else if (key === 'k') {
      event.preventDefault();
      select(current < 0 ? 0 : current - 1);
    } else if (current < 0) {
      return;
    } else if (STATUS[key]) {
      event.preventDefault();
      setStatus(rows[current], STATUS[key]);
    } else if (key === 'x') {
      const box = rows[current].querySelector('input[name="ids"]');
      if (box) {
        event.preventDefault();
        box.checked = !box.checked;
      }
    }
  }

  function plural(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
  }

  /** Shows the banner with a text and a link, or hides it; announced once per new text. */
  function showBanner(banner, text, href) {
    if (!text) {
      banner.hidden = true;
      return;
    }
    const link = banner.querySelector('a') ?? document.createElement('a');
    const words = banner.querySelector('span') ?? document.createElement('span');
    if (words.textContent === text && !banner.hidden) return;
    words.textContent = text;
    link.textContent = 'show';
    link.setAttribute('href', href);
    if (!words.parentNode) banner.append(words, ' — ', link);
    banner.hidden = false;
    say(`${text}.`);
  }

  function startLive(body, url) {
    const every = Number(body.getAttribute('data-live-every')) || 15000;
    const title = body.getAttribute('data-title') || document.title;
    const show = body.getAttribute('data-live-show');
    const reviewId = body.getAttribute('data-live-review');
    const banner = document.getElementById('live-banner');
    const icon = document.getElementById('favicon');
    let etag = null;
    let failures = 0;
    let timer = 0;
    let busy = false;
    let stopped = false;

    function apply(answer) {
      document.title = answer.open > 0 ? `(${answer.open}) ${title}` : title;
      icon?.setAttribute('href', answer.open > 0 ? `/favicon.svg?open=${answer.open}` : '/favicon.svg');
      // In place, text for text: a status changes width a little, never a row's place.
      for (const change of answer.changed) {
        const cell = document.querySelector(`tr[data-review-id="${change.id}"] .status`);
        if (cell && cell.textContent !== change.status) cell.textContent = change.status;
      }
      if (!banner) return;
      if (reviewId && answer.changed.some((c) => String(c.id) === reviewId)) {
        showBanner(banner, 'This review was changed since the page was opened', window.location.pathname);
      } else if (show && answer.newer > 0) {
        showBanner(banner, plural(answer.newer, 'new review', 'new reviews'), show);
      }
    }

    function schedule(ms) {
      clearTimeout(timer);
      timer = setTimeout(poll, ms);
    }

    /** A hidden tab still keeps its title and icon, at a quarter of the pace; failures back off to 5 min. */
    function delay() {
      const base = document.hidden ? every * 4 : every;
      return Math.min(base * 2 ** failures, 300000);
    }

    function poll() {
      if (busy || stopped) return;
      busy = true;
      const headers = { accept: 'application/json' };
      if (etag) headers['if-none-match'] = etag;
      fetch(url, { headers, credentials: 'same-origin', cache: 'no-store' })
        .then((res) => {
          if (res.status === 304) return null;
          if (res.status === 401) {
            stopped = true;
            say('You were signed out: reload the page to log in again.');
            return null;
          }
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          etag = res.headers.get('etag');
          return res.json();
        })
        .then((answer) => {
          failures = 0;
          if (answer) apply(answer);
        })
        .catch(() => {
          failures = Math.min(failures + 1, 8);
        })
        .finally(() => {
          busy = false;
          if (!stopped) schedule(delay());
        });
    }

    document.addEventListener('visibilitychange', () => {
      if (!document.hidden) schedule(0);
    });
    schedule(every);
  }

  const liveUrl = document.body?.getAttribute('data-live-url');
  if (liveUrl) startLive(document.body, liveUrl);

  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target?.closest?.('input, textarea, select, [contenteditable]')) return;
    const key = event.key;
    if (key === '/') {
      const search = document.getElementById('q');
      if (search) {
        event.preventDefault();
        search.focus();
        search.select();
      }
      return;
    }
    if (rows.length > 0) {
      onListKey(event, key);
      return;
    }
    if (STATUS[key]) {
      const button = document.querySelector(`#triage button[data-status="${STATUS[key]}"]`);
      if (button) {
        event.preventDefault();
        button.click();
      }
    }
  });
})();

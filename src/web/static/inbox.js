/*
 * The inbox's script: keyboard shortcuts and live updates, and nothing the pages need to work. j/k move
 * through the list, a/r/i set the status of the current review (through the JSON API, with the page's CSRF
 * token), x selects it for a bulk action, / opens the filters at the search, ? shows the page's keys in a
 * dialog. A review set to a status its view does not list leaves the list, with an undo; the tabs' counts
 * follow at once. The list's filters fold, and stay as the reader left them (localStorage). On a review's page a/r/i press its status buttons, Shift+R and Shift+A
 * resolve or acknowledge and open the next review, j/k open the next or previous one and u goes back to the
 * list. Forms marked data-replace are sent in the background and their answer replaces the page's history
 * entry, so that Back leaves the review rather than stepping through its changes. Keys typed into a field
 * are left alone. A page that says where to poll (`data-live-url`, see web/live.ts) asks there every few
 * seconds and keeps its title and icon on the open count (and the list its tabs' counts and total), updates
 * the status of rows someone triaged, and offers new reviews in a banner that covers nothing it would move. Served as it is (no build step), to
 * browsers that run ES2017.
 */
(() => {
  // biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (the page loads it without type="module")
  'use strict';
  const STATUS = { a: 'acknowledged', r: 'resolved', i: 'ignored' };
  const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? null;
  const live = document.getElementById('live');
  const rows = Array.from(document.querySelectorAll('table.inbox tbody tr[data-review-id]'));
  let current = -1;
  /** Asks the live endpoint at once (after a change made here); null on a page that is not live. */
  let refreshLive = null;

  function say(text) {
    if (live) live.textContent = text;
  }

  function select(index) {
    if (rows.length === 0) return;
    // Every row, not the one at `current`: after a row left or came back, that index names another.
    for (const row of document.querySelectorAll('table.inbox tr.current')) row.classList.remove('current');
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
        afterStatus(row, body.triage.status);
        // The tabs' counts and the title follow the change now, not at the next poll.
        refreshLive?.();
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

  /** "1,204", "10,000+": a count as the server writes it (util/plural.ts). */
  function countText(n, capped) {
    return `${String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${capped ? '+' : ''}`;
  }

  /** The tabs' counts and the list's total, as the server counts them now (`tabs` of /api/live). */
  function showCounts(tabs) {
    for (const tab of document.querySelectorAll('nav.views [data-view]')) {
      const n = tabs.counts[tab.getAttribute('data-view')];
      const count = tab.querySelector('.count');
      const text = n === undefined ? null : countText(n, tabs.capped);
      if (count && text !== null && count.textContent !== text) count.textContent = text;
    }
    // Why the title's count and the Open tab's differ, while they do (pages/inbox-notes.ts).
    const note = document.getElementById('open-note');
    const queue = note?.querySelector('[data-count="queue"]');
    const open = note?.querySelector('[data-count="open"]');
    if (note && queue && open && tabs.counts.open !== undefined) {
      open.textContent = countText(tabs.counts.open, false);
      note.hidden = queue.textContent === open.textContent;
    }
    // "12 reviews in Open": the number, in the paragraph's text, whatever follows it.
    const total = document.getElementById('total')?.firstChild;
    if (total && total.nodeType === Node.TEXT_NODE) {
      const text = `${tabs.capped ? 'at least ' : ''}${countText(tabs.total, false)} ${tabs.total === 1 ? 'review' : 'reviews'}`;
      const now = total.textContent.replace(/^(at least )?[\d,]+ reviews?/, text);
      if (total.textContent !== now) total.textContent = now;
    }
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
    let again = false;
    let stopped = false;

    function apply(answer) {
      document.title = answer.open > 0 ? `(${answer.open}) ${title}` : title;
      const queue = document.querySelector('#open-note [data-count="queue"]');
      if (queue) queue.textContent = countText(answer.open, false);
      if (answer.tabs) showCounts(answer.tabs);
      icon?.setAttribute('href', answer.open > 0 ? `/favicon.svg?open=${answer.open}` : '/favicon.svg');
      // In place, text for text: a status changes width a little, never a row's place.
      for (const change of answer.changed) {
        const row = document.querySelector(`tr[data-review-id="${change.id}"]`);
        const cell = row?.querySelector('.status');
        if (cell && cell.textContent !== change.status) cell.textContent = change.status;
        // What a key's change of this row would undo to: the status as it now is, not as drawn.
        if (row?.hasAttribute('data-status')) row.setAttribute('data-status', change.status);
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
      if (stopped) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      again = false;
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
          if (!stopped) schedule(again ? 0 : delay());
        });
    }

    document.addEventListener('visibilitychange', () => {
      if (!document.hidden) schedule(0);
    });
    schedule(every);
    return () => schedule(0);
  }

  const liveUrl = document.body?.getAttribute('data-live-url');
  if (liveUrl) refreshLive = startLive(document.body, liveUrl);

  // --- A row that leaves its view, with an undo (the list's Open, New, Resolved… views) -----------------

  const kept = document.querySelector('table.inbox')?.getAttribute('data-view-statuses');

  /** A row set to a status its view does not list goes, the next one becomes current, and Undo brings it back. */
  function afterStatus(row, status) {
    const previous = row.getAttribute('data-status');
    row.setAttribute('data-status', status);
    if (!kept || kept.split(',').includes(status) || !previous || previous === status) return;
    const index = rows.indexOf(row);
    if (index < 0) return;
    rows.splice(index, 1);
    row.hidden = true;
    if (current >= index) current = Math.min(index, rows.length - 1);
    if (current >= 0) select(current);
    showUndo(row, index, previous, status);
  }

  function showUndo(row, index, previous, status) {
    const notice = document.createElement('tr');
    notice.className = 'undo-row';
    const cell = document.createElement('td');
    cell.colSpan = row.children.length;
    const text = document.createElement('span');
    text.textContent = `Review ${row.getAttribute('data-review-id')} set to ${status}. `;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Undo';
    button.addEventListener('click', () => {
      notice.remove();
      row.hidden = false;
      rows.splice(Math.min(index, rows.length), 0, row);
      current = rows.indexOf(row);
      select(current);
      setStatus(row, previous);
    });
    cell.append(text, button);
    notice.append(cell);
    row.after(notice);
  }

  // --- Folds that remember: the list's filters stay as the reader left them (localStorage) ---------------

  function stored(key, value) {
    // Storage can be refused (a private window, a full disk): the fold then just starts closed.
    try {
      if (value === undefined) return localStorage.getItem(key);
      localStorage.setItem(key, value);
    } catch (_refused) {
      return null;
    }
    return null;
  }

  for (const details of document.querySelectorAll('details[data-remember]')) {
    const key = `reviewwatch.fold.${details.getAttribute('data-remember')}`;
    // Opened by the page (filters to correct) it stays open; otherwise as it was left.
    if (!details.open && stored(key) === 'open') details.open = true;
    // The reader's own clicks only: the script opening it for `/` is not a choice to remember.
    details.querySelector('summary')?.addEventListener('click', () => {
      setTimeout(() => stored(key, details.open ? 'open' : 'closed'), 0);
    });
  }

  // --- History: a change replaces the page's entry instead of adding one ------------------------------

  function replaceOnSubmit(event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-replace')) return;
    event.preventDefault();
    const body = new URLSearchParams(new FormData(form));
    // getAttribute: a field named "action" shadows form.action.
    fetch(form.getAttribute('action'), { method: 'POST', body, credentials: 'same-origin' })
      .then((res) => {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        const target = new URL(res.url);
        if (target.pathname === location.pathname && target.search === location.search) {
          // The same page with the change: its entry gets the answer's address, and it loads again.
          const hash = form.closest('#triage') ? '#triage' : '';
          history.replaceState(null, '', `${target.pathname}${target.search}${hash}`);
          location.reload();
        } else {
          location.replace(res.url);
        }
      })
      .catch(() => {
        // Refused or unreachable: the ordinary way, whose answer says what went wrong.
        form.removeAttribute('data-replace');
        form.submit();
      });
  }
  document.addEventListener('submit', replaceOnSubmit);

  // --- A review's page: & next, previous and next, back to the list ----------------------------------

  const REVIEW_KEYS = {
    R: 'button[data-next-status="resolved"]',
    A: 'button[data-next-status="acknowledged"]',
  };
  const REVIEW_LINKS = { j: '#next-review', k: '#previous-review', u: '#back-to-list' };

  /** Handles a key of a review's page; false when it is not one. */
  function onReviewKey(event, key) {
    const target = REVIEW_KEYS[key] ? document.querySelector(REVIEW_KEYS[key]) : null;
    const link = REVIEW_LINKS[key] ? document.querySelector(REVIEW_LINKS[key]) : null;
    if (!target && !link) return false;
    event.preventDefault();
    if (target) target.click();
    else location.assign(link.getAttribute('href'));
    return true;
  }

  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target?.closest?.('input, textarea, select, [contenteditable]')) return;
    // An open dialog (the keys) takes the keyboard; Escape closes it (the browser's own).
    if (document.querySelector('dialog[open]')) return;
    const key = event.key;
    if (key === '?') {
      const keys = document.getElementById('keys-dialog');
      if (keys?.showModal) {
        event.preventDefault();
        keys.showModal();
      }
      return;
    }
    if (key === '/') {
      const search = document.getElementById('q');
      if (search) {
        event.preventDefault();
        const fold = search.closest('details');
        if (fold) fold.open = true;
        search.focus();
        search.select();
      }
      return;
    }
    if (rows.length > 0) {
      onListKey(event, key);
      return;
    }
    if (onReviewKey(event, key)) return;
    if (STATUS[key]) {
      const button = document.querySelector(`#triage button[data-status="${STATUS[key]}"]`);
      if (button) {
        event.preventDefault();
        button.click();
      }
    }
  });
})();

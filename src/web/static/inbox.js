/*
 * The inbox's script: keyboard shortcuts, and nothing the pages need to work. j/k move through the list,
 * a/r/i set the status of the current review (through the JSON API, with the page's CSRF token), x selects
 * it for a bulk action, / jumps to the search. On a review's page a/r/i press its status buttons. Keys typed
 * into a field are left alone. Served as it is (no build step), to browsers that run ES2017.
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

import { html } from '../html.js';
import { layout } from './layout.js';

export function loginPage(options: { csrf: string; next: string; name?: string; error?: string }): string {
  return layout({
    title: 'Log in',
    body: html`<section class="login">
  <h1>Log in to the inbox</h1>
  ${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
  <form method="post" action="/login">
    <input type="hidden" name="_csrf" value="${options.csrf}">
    <input type="hidden" name="next" value="${options.next}">
    <label class="field">Name <input type="text" name="name" autocomplete="username" required autofocus value="${options.name ?? ''}"></label>
    <label class="field">Password <input type="password" name="password" autocomplete="current-password" required></label>
    <button class="primary" type="submit">Log in</button>
  </form>
  <p class="muted small">An administrator adds users with <code>reviewwatch user add NAME</code>.</p>
</section>`,
  });
}

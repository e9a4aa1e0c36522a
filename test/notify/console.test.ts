import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { reviewAlert } from '../fixtures/alert-sample.js';
import { consoleChannel } from '../helpers/channels.js';

function sink(isTTY = false) {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream: Object.assign(stream, { isTTY }), text: () => text };
}

describe('the console channel', () => {
  it('prints a readable alert without letting review text drive the terminal', async () => {
    const out = sink();
    const sender = consoleChannel(out.stream);
    await sender.send({
      kind: 'single',
      alert: {
        kind: 'review',
        app: { handle: 'my-app', name: 'My App', url: 'https://apps.platform.example/my-app' },
        review: {
          reviewId: '1',
          reviewer: 'Evil\u001b[2J Store',
          location: 'Canada',
          rating: 1,
          content: 'Charged twice\u001b]0;pwned\u0007 and no refund',
          createdDate: '2026-11-20T00:00:00+00:00',
          timeUsingApp: 'Over 1 year using the app',
        },
        severity: { score: 90, priority: 'critical', reasons: ['1 star', 'mentions billing: charged twice'] },
      },
    });
    const text = out.text();
    expect(text).toContain('★☆☆☆☆');
    expect(text).toContain('Charged twice');
    expect(text).toContain('mentions billing: charged twice');
    // No escape sequence from the review reaches the terminal (a pipe gets no colours either).
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u0007');
  });

  it('colours a group in a terminal by its most urgent review, as the email does', async () => {
    const out = sink(true);
    const low = reviewAlert({ reviewId: '1' }, { score: 20, priority: 'low', reasons: ['4 stars'] });
    const critical = reviewAlert({ reviewId: '2' }, { score: 90, priority: 'critical', reasons: ['1 star'] });
    await consoleChannel(out.stream).send({
      kind: 'group',
      app: low.app,
      alerts: [low, critical],
    });
    // Bold red (critical), although the first review of the group is low.
    expect(out.text()).toContain('[1;31m★ my-app: 2 new low reviews[0m');
  });
});

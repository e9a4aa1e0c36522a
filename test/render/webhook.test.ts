import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { Alert } from '../../src/alerts/types.js';
import {
  renderWith,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_RENDERERS,
  type WebhookEvent,
} from '../../src/render/index.js';
import { group, reviewAlert } from '../fixtures/alert-sample.js';
import { sampleDigestData } from '../fixtures/digest-sample.js';
import { EVERY_KIND } from '../fixtures/every-kind.js';

const SCHEMAS = resolve(import.meta.dirname, '../../docs/webhooks/schemas');
const ajv = new Ajv({
  allErrors: true,
  allowUnionTypes: true,
  formats: { 'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/ },
});
const validators = new Map<string, ValidateFunction>(
  readdirSync(SCHEMAS).map((file) => [
    file.replace(/\.json$/, ''),
    ajv.compile(JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8'))),
  ]),
);

/** The body as a receiver gets it: the event in its envelope, through JSON. */
function body(event: WebhookEvent): unknown {
  return JSON.parse(
    JSON.stringify({
      type: event.type,
      id: 'msg_1',
      createdAt: '2026-11-20T06:00:00.000Z',
      data: event.data,
    }),
  );
}

function expectValid(event: WebhookEvent): void {
  const validate = validators.get(event.type);
  expect(validate, `a schema for ${event.type}`).toBeDefined();
  const valid = validate?.(body(event));
  expect(valid ? [] : validate?.errors, event.type).toEqual([]);
}

describe('the webhook payloads', () => {
  it('have a schema for every type, and none for a type that does not exist', () => {
    expect([...validators.keys()].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });

  it('match their schema for every alert kind, a group, the digest and the test message', () => {
    const source = { inboxUrl: 'https://reviews.example.com', simulated: true };
    for (const alert of Object.values(EVERY_KIND) as Alert[])
      expectValid(renderWith(WEBHOOK_RENDERERS, { kind: 'single', alert }, source));
    expectValid(renderWith(WEBHOOK_RENDERERS, group(3), {}));
    expectValid(WEBHOOK_RENDERERS.digest(sampleDigestData(), {}));
    expectValid(WEBHOOK_RENDERERS.test('hooks', new Date('2026-11-20T06:00:00Z')));
  });

  it('carry what the Slack message says as fields, review text as written', () => {
    const hostile = reviewAlert({ content: '<!channel> *charged* <https://evil.example|twice>', rating: 1 });
    const event = renderWith(WEBHOOK_RENDERERS, { kind: 'single', alert: hostile }, {});
    expect(event.type).toBe('review.low');
    expect(event.data).toMatchObject({
      app: { handle: 'my-app' },
      reviews: [{ rating: 1, content: '<!channel> *charged* <https://evil.example|twice>' }],
    });
  });

  it('carry a fall the review alerts explain, since no rating.drop event says it', () => {
    const folded = { ...reviewAlert({ rating: 1 }), rating: { now: 4.2, was: 4.3 } };
    const single = renderWith(WEBHOOK_RENDERERS, { kind: 'single', alert: folded }, {});
    expectValid(single);
    expect(single.data).toMatchObject({ rating: { now: 4.2, was: 4.3 } });
    const { alerts, ...rest } = group(3);
    const grouped = renderWith(
      WEBHOOK_RENDERERS,
      { ...rest, alerts: alerts.map((a) => ({ ...a, rating: { now: 4.2, was: 4.3 } })) },
      {},
    );
    expectValid(grouped);
    expect(grouped.data).toMatchObject({ rating: { now: 4.2, was: 4.3 } });
    expect(renderWith(WEBHOOK_RENDERERS, group(3), {}).data).toMatchObject({ rating: null });
  });

  it("carry a competitor's drops in the digest, said nowhere else", () => {
    const event = WEBHOOK_RENDERERS.digest(sampleDigestData(), {});
    expectValid(event);
    const apps = event.data.apps as Array<{ handle: string; role: string; drops: unknown }>;
    expect(apps.find((a) => a.role === 'competitor')).toMatchObject({
      handle: 'shopbundles-pro',
      drops: [{ from: 4.41, to: 4.35, at: '2026-11-19T09:10:00.000Z' }],
    });
  });

  it('a schema refuses a payload that breaks it (the check can fail)', () => {
    const event = renderWith(WEBHOOK_RENDERERS, { kind: 'single', alert: EVERY_KIND['rating-drop'] }, {});
    const broken = body({ ...event, data: { ...event.data, priority: 'urgent' } });
    expect(validators.get('rating.drop')?.(broken)).toBe(false);
  });
});

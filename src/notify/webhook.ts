import { createHmac } from 'node:crypto';
import { errorMessage } from '../errors.js';
import type { WebhookEvent } from '../render/index.js';
import { isRedirect, parseRetryAfter } from '../util/http.js';
import { DeliveryError, redirectRefused } from './errors.js';
import type { PostMeta, Transport } from './sender.js';

/** Answers that may go through later: a timeout, too early, rate limited, or the receiver's trouble. */
const RETRYABLE = new Set([408, 425, 429]);
/** When a receiver asks to wait without saying how long. */
const DEFAULT_WAIT_MS = 5_000;

/** The key of a `whsec_…` secret: the bytes its base64 part encodes. */
export function webhookKey(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
}

/**
 * The `webhook-signature` header of the Standard Webhooks specification: `v1,` and the base64
 * HMAC-SHA256 of `id.timestamp.body`, once per secret, space-separated.
 */
export function webhookSignature(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const mac = createHmac('sha256', webhookKey(secret)).update(`${id}.${timestamp}.${body}`);
      return `v1,${mac.digest('base64')}`;
    })
    .join(' ');
}

/**
 * Signed JSON posted to the channel's URL (docs/webhooks.md). The id is the message's (the same on each
 * retry), the timestamp the attempt's, as the specification asks. Errors name the channel and the HTTP
 * status, never the URL or the secret.
 */
export class WebhookSender implements Transport<WebhookEvent> {
  readonly name: string;
  readonly #url: string;
  readonly #secrets: readonly string[];
  readonly #timeoutMs: number;
  readonly #now: () => Date;

  constructor(
    name: string,
    options: { url: string; secret: string | readonly string[]; timeoutMs?: number; now?: () => Date },
  ) {
    this.name = name;
    this.#url = options.url;
    this.#secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#now = options.now ?? (() => new Date());
  }

  async post(event: WebhookEvent, meta: PostMeta): Promise<void> {
    const body = JSON.stringify({
      type: event.type,
      id: meta.id,
      createdAt: meta.at.toISOString(),
      data: event.data,
    });
    const timestamp = Math.floor(this.#now().getTime() / 1000);
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'reviewwatch-webhook',
          'webhook-id': meta.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(this.#secrets, meta.id, timestamp, body),
        },
        body,
        signal: AbortSignal.timeout(this.#timeoutMs),
        // A 3xx comes back as it is, for #refused to name: 'error' would make it a nameless "fetch failed".
        redirect: 'manual',
      });
    } catch (err) {
      throw this.#unreachable(err);
    }
    // The body is not needed; reading it frees the connection.
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return;
    throw this.#refused(response);
  }

  #refused(response: Response): DeliveryError {
    const { status } = response;
    const what = `the webhook receiver answered HTTP ${status}`;
    if (isRedirect(status)) return redirectRefused(this.name, what);
    const wait = parseRetryAfter(response.headers.get('retry-after'));
    if (RETRYABLE.has(status) || (status === 503 && wait !== undefined))
      return new DeliveryError(this.name, what, { retryAfterMs: wait ?? DEFAULT_WAIT_MS });
    if (status >= 400 && status < 500) {
      return new DeliveryError(
        this.name,
        `${what}: it refused the message, so retrying cannot help; check the channel's url and secret, then \`reviewwatch notify retry\``,
        { permanent: true },
      );
    }
    return new DeliveryError(this.name, what);
  }

  #unreachable(err: unknown): DeliveryError {
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
      return new DeliveryError(this.name, `the webhook receiver did not answer within ${this.#timeoutMs} ms`);
    // undici's message is "fetch failed"; the cause's code says why, and names no URL.
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    return new DeliveryError(
      this.name,
      `the webhook receiver is unreachable (${typeof code === 'string' ? code : errorMessage(err).replace(/https?:\/\/\S+/g, '…')})`,
    );
  }
}

import { IncomingWebhook, type IncomingWebhookSendArguments } from '@slack/webhook';
import { errorMessage } from '../errors.js';
import type { SlackMessage } from '../render/index.js';
import { isRedirect, parseRetryAfter } from '../util/http.js';
import { DeliveryError, redirectRefused } from './errors.js';
import type { Transport } from './sender.js';

/** Statuses that mean the webhook itself is gone or refused: retrying the same message cannot help. */
const PERMANENT = new Set([400, 401, 403, 404, 410]);

/**
 * A Slack incoming webhook. @slack/webhook's error for a 429 carries no headers, so the fetch it uses is
 * wrapped to read Retry-After on the way through. The wrapper also takes a redirect as it is, rather than
 * as the library's nameless "fetch failed", so that #failure can say what it was (no channel follows one).
 */
export class SlackSender implements Transport<SlackMessage> {
  readonly name: string;
  readonly #webhook: IncomingWebhook;
  #retryAfterMs: number | undefined;

  constructor(name: string, webhookUrl: string, options: { timeoutMs?: number } = {}) {
    this.name = name;
    this.#webhook = new IncomingWebhook(webhookUrl, {
      timeout: options.timeoutMs ?? 10_000,
      fetch: async (url, init) => {
        const response = await fetch(url, { ...init, redirect: 'manual' });
        this.#retryAfterMs =
          response.status === 429 ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
        return response;
      },
    });
  }

  async post(message: SlackMessage): Promise<void> {
    try {
      await this.#webhook.send(message as IncomingWebhookSendArguments);
    } catch (err) {
      throw this.#failure(err);
    }
  }

  #failure(err: unknown): DeliveryError {
    const status = (err as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number') {
      const body = String((err as { body?: unknown }).body ?? '').slice(0, 100);
      if (isRedirect(status)) return redirectRefused(this.name, `Slack answered HTTP ${status}`);
      const what = `Slack answered HTTP ${status}${body ? ` (${body})` : ''}`;
      if (status === 429)
        return new DeliveryError(this.name, what, { retryAfterMs: this.#retryAfterMs ?? 1_000 });
      if (PERMANENT.has(status)) {
        return new DeliveryError(this.name, `${what}: the webhook is gone or refuses messages; check it`, {
          permanent: true,
        });
      }
      return new DeliveryError(this.name, what);
    }
    // Network errors and timeouts: the underlying message names a host at most, never the path's token.
    const original = (err as { original?: unknown }).original ?? err;
    const code = (original as { cause?: { code?: unknown } }).cause?.code;
    return new DeliveryError(
      this.name,
      `Slack unreachable (${typeof code === 'string' ? code : redact(errorMessage(original))})`,
    );
  }
}

/** Webhook URLs carry their secret in the path: keep only scheme and host if one shows up in a message. */
export function redact(text: string): string {
  return text.replace(/https?:\/\/([^/\s]+)\/\S*/g, (_, host: string) => `https://${host}/…`);
}

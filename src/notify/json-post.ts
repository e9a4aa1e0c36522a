import { errorMessage } from '../errors.js';
import { isRedirect } from '../util/http.js';
import { DeliveryError, redirectRefused } from './errors.js';
import type { Transport } from './sender.js';

/** What a chat service answered: its status, headers and (short) body. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * POSTs JSON to a webhook whose URL is its secret (Teams' `sig=`, Discord's token): a failure to reach
 * it names the channel, the service and the network error's code, never the URL. A redirect is answered
 * as it is, not followed, so the message cannot be sent on to somewhere else (ChatWebhook refuses it).
 */
export async function postJson(
  channel: string,
  service: string,
  url: string,
  payload: unknown,
  timeoutMs: number,
): Promise<JsonAnswer> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'reviewwatch' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
  } catch (err) {
    if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
      throw new DeliveryError(channel, `${service} did not answer within ${timeoutMs} ms`);
    // undici's message is "fetch failed"; the cause's code says why, and names no URL.
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    const why = typeof code === 'string' ? code : redactUrls(errorMessage(err));
    throw new DeliveryError(channel, `${service} is unreachable (${why})`);
  }
  // Read whole, so the connection is freed; only the start is ever shown.
  const body = await response.text().catch(() => '');
  return { status: response.status, headers: response.headers, body: body.slice(0, 2_000) };
}

/**
 * Any URL in a service's text, down to its host: a webhook's URL must not reach an error or a log. A URL
 * with an `@` anywhere may carry `user:pass@` (where a stray `/` in the password would pass for the host's
 * end), so it goes entirely.
 */
export function redactUrls(text: string): string {
  return text.replace(/https?:\/\/\S*/gi, (url) => {
    const host = /^https?:\/\/([^/\s?#]+)/i.exec(url)?.[1];
    return host && !url.includes('@') ? `https://${host}/…` : '…';
  });
}

/**
 * A chat service's incoming webhook whose URL is its secret (Teams, Discord): posts the message, and on
 * anything but a 2xx throws a DeliveryError that the service's hooks fill in: its reason, whether and how
 * long to wait, and what to fix when a 4xx makes retrying pointless.
 */
export abstract class ChatWebhook<M> implements Transport<M> {
  readonly name: string;
  readonly #url: string;
  readonly #timeoutMs: number;
  /** How errors name the service ("Discord"). */
  protected abstract readonly service: string;

  constructor(name: string, webhookUrl: string, options: { timeoutMs?: number } = {}) {
    this.name = name;
    this.#url = webhookUrl;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  async post(message: M): Promise<void> {
    const answer = await postJson(this.name, this.service, this.#url, message, this.#timeoutMs);
    if (answer.status >= 200 && answer.status < 300) return;
    throw this.#refusal(answer);
  }

  /**
   * The error for an answer that is not a 2xx: permanent for a redirect, retried after the service's wait
   * when it asks for one, permanent for any other 4xx (the message or the webhook is wrong), else retried
   * as transient.
   */
  #refusal(answer: JsonAnswer): DeliveryError {
    const { status } = answer;
    if (isRedirect(status)) return redirectRefused(this.name, `${this.service} answered HTTP ${status}`);
    const what = `${this.service} answered HTTP ${status}${this.reason(answer.body)}`;
    const wait = this.retryWait(answer);
    if (wait !== undefined) return new DeliveryError(this.name, what, { retryAfterMs: wait });
    if (status >= 400 && status < 500) {
      return new DeliveryError(
        this.name,
        `${what}: ${this.permanentHint(status)}, then \`reviewwatch notify retry\``,
        { permanent: true },
      );
    }
    return new DeliveryError(this.name, what);
  }

  /** The service's own words for a refusal, short and URL-free, as " (…)"; '' when it gave none. */
  protected abstract reason(body: string): string;

  /** How long to wait before retrying an answer that asks for a wait (a 429), in ms; undefined for others. */
  protected abstract retryWait(answer: JsonAnswer): number | undefined;

  /** What went wrong and what to fix, for a 4xx that no retry can help. */
  protected abstract permanentHint(status: number): string;
}

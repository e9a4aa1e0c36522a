import type { DiscordMessage } from '../render/index.js';
import { parseRetryAfter } from '../util/http.js';
import { ChatWebhook, type JsonAnswer, redactUrls } from './json-post.js';

/** When Discord asks to wait without saying how long. */
const DEFAULT_WAIT_MS = 2_000;

/**
 * How long Discord asks to wait: `retry_after` in the 429's JSON body (seconds, possibly fractional),
 * else the Retry-After header.
 */
export function discordRetryAfterMs(answer: Pick<JsonAnswer, 'headers' | 'body'>): number | undefined {
  try {
    const seconds = (JSON.parse(answer.body) as { retry_after?: unknown }).retry_after;
    if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0)
      return Math.ceil(seconds * 1000);
  } catch {
    // Not JSON (a proxy's page): the header may still say.
  }
  return parseRetryAfter(answer.headers.get('retry-after'));
}

/**
 * A Discord channel webhook. Its URL holds the webhook's token: errors name the channel and the status,
 * never the URL.
 */
export class DiscordSender extends ChatWebhook<DiscordMessage> {
  protected readonly service = 'Discord';

  /** Discord's own words for a refusal (`{"message": "Invalid Form Body", …}`), short and URL-free. */
  protected reason(body: string): string {
    try {
      const message = (JSON.parse(body) as { message?: unknown }).message;
      return typeof message === 'string' && message !== '' ? ` (${redactUrls(message).slice(0, 100)})` : '';
    } catch {
      return '';
    }
  }

  protected retryWait(answer: JsonAnswer): number | undefined {
    return answer.status === 429 ? (discordRetryAfterMs(answer) ?? DEFAULT_WAIT_MS) : undefined;
  }

  protected permanentHint(status: number): string {
    return status === 401 || status === 403 || status === 404
      ? 'the webhook is gone or its URL is wrong: make a new one in the channel settings (Integrations)'
      : 'it refused the message, so retrying cannot help';
  }
}

import { ReviewwatchError } from '../errors.js';

/**
 * A delivery that did not go through. `permanent` failures (a webhook that is gone, a rejected address)
 * are recorded as failed until someone acts (`reviewwatch notify retry`); the others are retried with
 * backoff, and a channel's rate limit with its own Retry-After. Messages name the channel, never its
 * webhook URL or SMTP credentials.
 */
export class DeliveryError extends ReviewwatchError {
  readonly channel: string;
  readonly permanent: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    channel: string,
    message: string,
    options: { permanent?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(`channel "${channel}": ${message}`, options.cause === undefined ? {} : { cause: options.cause });
    this.channel = channel;
    this.permanent = options.permanent ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * A webhook that answered with a redirect (3xx), which no channel follows: the message, whose URL is its
 * secret, would go to an address the config does not name. Retrying cannot help, so it fails for good,
 * naming neither URL (the Location may carry a token as well).
 */
export function redirectRefused(channel: string, answered: string): DeliveryError {
  return new DeliveryError(
    channel,
    `${answered}, a redirect, which is not followed: put the address it redirects to in the channel's config, then \`reviewwatch notify retry\``,
    { permanent: true },
  );
}

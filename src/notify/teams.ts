import type { TeamsMessage } from '../render/index.js';
import { parseRetryAfter } from '../util/http.js';
import { DeliveryError } from './errors.js';
import { postJson } from './json-post.js';
import type { Transport } from './sender.js';

/** When Teams asks to wait without saying how long. */
const DEFAULT_WAIT_MS = 5_000;

/**
 * The error code Power Automate gives (`{"error": {"code": "TriggerInputSchemaMismatch", …}}`): it names
 * what went wrong without quoting the request. Only a code-like word is kept.
 */
function teamsReason(body: string): string {
  try {
    const code = (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' && /^[A-Za-z0-9_.-]{1,80}$/.test(code) ? ` (${code})` : '';
  } catch {
    return '';
  }
}

/**
 * A Teams Workflows webhook ("When a Teams webhook request is received", docs/configuration.md). It
 * answers 202 once the flow accepted the message; 429 with Retry-After when throttled. Errors name the
 * channel and the status, never the URL: its `sig=` lets anyone post.
 */
export class TeamsSender implements Transport<TeamsMessage> {
  readonly name: string;
  readonly #url: string;
  readonly #timeoutMs: number;

  constructor(name: string, webhookUrl: string, options: { timeoutMs?: number } = {}) {
    this.name = name;
    this.#url = webhookUrl;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  async post(message: TeamsMessage): Promise<void> {
    const answer = await postJson(this.name, 'the Teams workflow', this.#url, message, this.#timeoutMs);
    const { status } = answer;
    if (status >= 200 && status < 300) return;
    const what = `the Teams workflow answered HTTP ${status}${teamsReason(answer.body)}`;
    const wait = parseRetryAfter(answer.headers.get('retry-after'));
    if (status === 429 || status === 408 || (status === 503 && wait !== undefined))
      throw new DeliveryError(this.name, what, { retryAfterMs: wait ?? DEFAULT_WAIT_MS });
    if (status >= 400 && status < 500) {
      throw new DeliveryError(
        this.name,
        `${what}: it refused the message, so retrying cannot help. The workflow may be off or deleted, its owner gone, or its URL wrong: check it in Power Automate, then \`reviewwatch notify retry\``,
        { permanent: true },
      );
    }
    throw new DeliveryError(this.name, what);
  }
}

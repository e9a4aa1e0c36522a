import type { TeamsMessage } from '../render/index.js';
import { parseRetryAfter } from '../util/http.js';
import { ChatWebhook, type JsonAnswer } from './json-post.js';

/** When Teams asks to wait without saying how long. */
const DEFAULT_WAIT_MS = 5_000;

/**
 * A Teams Workflows webhook ("When a Teams webhook request is received", docs/configuration.md). It
 * answers 202 once the flow accepted the message; 429 with Retry-After when throttled. Errors name the
 * channel and the status, never the URL: its `sig=` lets anyone post.
 */
export class TeamsSender extends ChatWebhook<TeamsMessage> {
  protected readonly service = 'the Teams workflow';

  /**
   * The error code Power Automate gives (`{"error": {"code": "TriggerInputSchemaMismatch", …}}`): it names
   * what went wrong without quoting the request. Only a code-like word is kept.
   */
  protected reason(body: string): string {
    try {
      const code = (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;
      return typeof code === 'string' && /^[A-Za-z0-9_.-]{1,80}$/.test(code) ? ` (${code})` : '';
    } catch {
      return '';
    }
  }

  protected retryWait(answer: JsonAnswer): number | undefined {
    const { status } = answer;
    const wait = parseRetryAfter(answer.headers.get('retry-after'));
    return status === 429 || status === 408 || (status === 503 && wait !== undefined)
      ? (wait ?? DEFAULT_WAIT_MS)
      : undefined;
  }

  protected permanentHint(): string {
    return 'it refused the message, so retrying cannot help. The workflow may be off or deleted, its owner gone, or its URL wrong: check it in Power Automate';
  }
}

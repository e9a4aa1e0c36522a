import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import { CHANNEL_TYPES } from './kinds.js';

export type { Logger };

/** Keys whose values are secrets, wherever they sit in a logged object. */
const SECRET_KEYS =
  /^(api[-_]?key|x-api-key|webhook[-_]?url|smtp[-_]?url|password|pass|authorization|token|secrets?)$/i;
/**
 * Keys that are secrets in a channel's config (an object whose `type` is a channel type): a webhook
 * channel's `url` is as good as its secret to anyone who wants to post to it. Elsewhere `url` is a
 * listing's page, which logs may show.
 */
const CHANNEL_SECRET_KEYS = /^urls?$/i;
const REDACTED = '[redacted]';

/**
 * Replaces secret values at any depth. pino's own `redact` takes fixed paths, and config objects and
 * errors nest secrets deeper than any list of paths would cover.
 */
function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  if (value instanceof Error) return value;
  const channel = isChannelConfig(value);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const secret = SECRET_KEYS.test(key) || (channel && CHANNEL_SECRET_KEYS.test(key));
    out[key] = secret ? REDACTED : redactSecrets(item, depth + 1);
  }
  return out;
}

function isChannelConfig(value: object): boolean {
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && Object.hasOwn(CHANNEL_TYPES, type);
}

export interface LogOptions {
  level?: string;
  /** `pretty` for a terminal, `json` for machines; defaults to pretty on a TTY. */
  format?: 'json' | 'pretty';
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LogOptions = {}): Logger {
  const destination = options.destination ?? process.stderr;
  // LOG_FORMAT and LOG_LEVEL arrive through `options` (settings.ts reads the environment).
  const format = options.format ?? ((destination as { isTTY?: boolean }).isTTY ? 'pretty' : 'json');
  const level = options.level ?? 'info';
  const base = {
    level,
    base: undefined,
    formatters: {
      log: (object: Record<string, unknown>) => redactSecrets(object) as Record<string, unknown>,
    },
  };
  if (format === 'pretty') {
    return pino(
      base,
      pretty({
        destination,
        colorize: (destination as { isTTY?: boolean }).isTTY === true,
        sync: true,
        ignore: 'pid,hostname',
      }),
    );
  }
  return pino(base, destination);
}

/** A logger that drops everything; for library callers and tests that do not care. */
export const silentLogger: Logger = pino({ level: 'silent' });

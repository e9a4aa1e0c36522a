import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import { CHANNEL_TYPES } from './kinds.js';
import { logLine } from './util/log-line.js';

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
  /**
   * Events a terminal does not need, by their fields (the demo's "delivered 1 alert to terminal" under the
   * alert it just printed). Only in the `pretty` format: the JSON format keeps every event.
   */
  omit?: (fields: Record<string, unknown>) => boolean;
}

/** pino's hook that drops the events `omit` names before they are formatted. */
function omitting(omit: (fields: Record<string, unknown>) => boolean) {
  return function logMethod(
    this: Logger,
    args: Parameters<Logger['info']>,
    method: (...a: unknown[]) => void,
  ) {
    const [first] = args as unknown[];
    if (
      typeof first === 'object' &&
      first !== null &&
      !(first instanceof Error) &&
      omit(first as Record<string, unknown>)
    ) {
      return;
    }
    method.apply(this, args as unknown[]);
  };
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
    // Read by a person: one short line an event (util/log-line.ts), its fields in the JSON format. With
    // --verbose (debug) every field and an error's stack, as pino-pretty draws them, under the line.
    const info = pino.levels.values.info ?? 30;
    const detailed = (pino.levels.values[level] ?? info) < info;
    const lines = detailed
      ? { ignore: 'pid,hostname' }
      : {
          ignore: 'pid,hostname',
          hideObject: true,
          // Errors are fields like the others: their message goes on the line (logLine), not their stack.
          errorLikeObjectKeys: [],
          translateTime: 'HH:MM:ss',
          messageFormat: (event: Record<string, unknown>, key: string) =>
            logLine(event, String(event[key] ?? '')),
        };
    return pino(
      { ...base, ...(options.omit ? { hooks: { logMethod: omitting(options.omit) } } : {}) },
      pretty({
        destination,
        colorize: (destination as { isTTY?: boolean }).isTTY === true,
        sync: true,
        ...lines,
      }),
    );
  }
  return pino(base, destination);
}

/** A logger that drops everything; for library callers and tests that do not care. */
export const silentLogger: Logger = pino({ level: 'silent' });

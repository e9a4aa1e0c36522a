import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/**
 * Paths that may hold a secret. Errors and config objects are logged in places, so redact by key name
 * wherever it appears rather than trusting every call site.
 */
const REDACT = [
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'webhookUrl',
  '*.webhookUrl',
  '*.*.webhookUrl',
  'smtpUrl',
  '*.smtpUrl',
  'password',
  '*.password',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
];

export interface LogOptions {
  level?: string;
  /** `pretty` for a terminal, `json` for machines; defaults to pretty on a TTY. */
  format?: 'json' | 'pretty';
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LogOptions = {}): Logger {
  const destination = options.destination ?? process.stderr;
  const format =
    options.format ??
    (process.env.LOG_FORMAT === 'json' || process.env.LOG_FORMAT === 'pretty'
      ? process.env.LOG_FORMAT
      : (destination as { isTTY?: boolean }).isTTY
        ? 'pretty'
        : 'json');
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const base = { level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined };
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

/**
 * A log event as one short terminal line (log.ts, the `pretty` format): the message says what happened, so
 * the fields that repeat it (`url`, `added: 4` under "4 added") stay in the JSON format. A warning or an
 * error also gets what its message leaves out, briefly: the error's message and the fields it does not
 * already say (` (status=429, retryIn=5s)`).
 */

/** Keys every event has, or that the line shows otherwise. */
const OWN_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err', 'error']);
/** pino's level numbers: 40 is warn. */
const WARN = 40;
/** A value longer than this is cut: a line, not a dump. */
const MAX_VALUE = 60;

function valueText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined
    ? String(value)
    : text.length > MAX_VALUE
      ? `${text.slice(0, MAX_VALUE - 1)}…`
      : text;
}

/** The message of an error-like field (`err`, `error`): an Error pino serialised, or a string. */
function errorText(event: Record<string, unknown>): string | undefined {
  const err = event.err ?? event.error;
  if (err === undefined || err === null) return undefined;
  if (typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  return valueText(err);
}

/** The fields of an event its message does not already say, as `key=value`. */
export function unsaidFields(event: Record<string, unknown>, message: string): string[] {
  return Object.entries(event)
    .filter(([key, value]) => !OWN_KEYS.has(key) && value !== undefined)
    .filter(([, value]) => {
      const text = valueText(value);
      return text === '' || !message.includes(text);
    })
    .map(([key, value]) => `${key}=${valueText(value)}`);
}

/** The event's line: its message; below warn nothing more, from warn up what the message leaves out. */
export function logLine(event: Record<string, unknown>, message: string): string {
  if (typeof event.level !== 'number' || event.level < WARN) return message;
  const err = errorText(event);
  const withError = err && !message.includes(err) ? `${message}: ${err}` : message;
  const fields = unsaidFields(event, withError);
  return fields.length > 0 ? `${withError} (${fields.join(', ')})` : withError;
}

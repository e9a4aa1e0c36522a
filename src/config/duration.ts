const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses `500ms`, `30s`, `15m`, `2h`, `1d` (and combinations such as `1h30m`) to milliseconds.
 * Returns undefined for anything else so the caller can say which key was wrong.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  let total = 0;
  let rest = trimmed;
  const part = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/;
  while (rest.length > 0) {
    const match = part.exec(rest);
    if (!match) return undefined;
    total += Number(match[1]) * (UNITS[match[2] as string] as number);
    rest = rest.slice(match[0].length).trimStart();
  }
  return total;
}

export function formatDuration(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

/**
 * "Did you mean …?" for handles: the candidates within a few edits of what was typed, closest first.
 * Handles are short (under 100 characters) and a marketplace has thousands of them, so a plain dynamic
 * programme per candidate, cut short once it cannot come within the limit, is fast enough.
 */

/**
 * Edits (insert, delete, substitute, swap two neighbours) between two strings: the optimal string
 * alignment distance, since a swapped pair of letters is the commonest typo and should cost one.
 * Returns `limit + 1` as soon as the distance must exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (before[j - 2] as number) + 1);
      }
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/** How many edits still read as a typo of a handle this long: 2 for short ones, up to a third of it. */
export function typoLimit(typed: string): number {
  return Math.max(2, Math.floor(typed.length / 3));
}

/**
 * Up to `max` candidates closest to `typed` within its typo limit, closest first, then alphabetically; a
 * candidate that contains what was typed (or is contained in it) also counts, after the close ones.
 */
export function closestHandles(typed: string, candidates: Iterable<string>, max = 3): string[] {
  const limit = typoLimit(typed);
  const scored: Array<{ handle: string; distance: number }> = [];
  for (const handle of new Set(candidates)) {
    if (handle === typed) continue;
    const distance = editDistance(typed, handle, limit);
    if (distance <= limit) scored.push({ handle, distance });
    else if (typed.length >= 4 && (handle.includes(typed) || typed.includes(handle)))
      scored.push({ handle, distance: limit + 1 });
  }
  scored.sort((x, y) => x.distance - y.distance || x.handle.localeCompare(y.handle));
  return scored.slice(0, max).map((s) => s.handle);
}

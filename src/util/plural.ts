/**
 * Counted nouns in English, for every layer that words a number: scoring's reasons ("1 star"), the
 * store's summaries and every message. Kept below the renderers so scoring can use it.
 */

/** 1204 → "1,204", independent of the machine's locale. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "1 review", "1,204 reviews". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** "1 star", "4 stars". */
export function starsLabel(rating: number): string {
  return plural(rating, 'star');
}

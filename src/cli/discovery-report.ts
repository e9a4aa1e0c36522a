import type { Competitor, Discovery } from '../onboard/discover.js';
import { plural } from '../util/plural.js';
import { terminalSafe } from './format.js';

function rankText(rank: number | null): string {
  return rank === null ? 'beyond the pages read' : `#${rank}`;
}

function name(text: string, width: number): string {
  const safe = terminalSafe(text);
  const cut = safe.length > width ? `${safe.slice(0, width - 1)}…` : safe;
  return cut.padEnd(width);
}

/** What `init` found, for the terminal: your apps, the categories with your ranks, the notes. */
export function discoveryLines(discovery: Discovery): string[] {
  const { developer, own, categories, notes } = discovery;
  const width = Math.max(...own.map((a) => a.handle.length));
  const whose =
    developer === null ? '' : ` of ${terminalSafe(developer.name)} (developer ${developer.handle})`;
  const lines = [`Your apps${whose}: ${own.length}`];
  for (const app of own) {
    const where = app.categories.length === 0 ? 'no category' : app.categories.join(', ');
    lines.push(`  ${app.handle.padEnd(width)}  ${name(app.name, 32)}  ${where}`);
  }
  lines.push(
    `Categories: ${categories.length}${categories.length === 0 ? '' : ' (ranks among the organic results, ads apart)'}`,
  );
  for (const c of categories) {
    const ranks = c.ranks.map((r) => `${r.handle} ${rankText(r.rank)}`).join(', ');
    lines.push(`  ${c.handle}: ${ranks}; ${plural(c.pages, 'page')} tracked`);
  }
  if (notes.length > 0) lines.push('Notes:', ...notes.map((n) => `  - ${terminalSafe(n)}`));
  return lines;
}

/** The suggested competitors, numbered from 1 so that a person can drop some by number. */
export function competitorLines(competitors: readonly Competitor[]): string[] {
  if (competitors.length === 0)
    return ['Suggested competitors: none (no other app ranked in your categories).'];
  const width = Math.max(...competitors.map((c) => c.handle.length));
  const digits = String(competitors.length).length;
  return [
    `Suggested competitors: ${competitors.length}, the apps ranked nearest to yours in each category`,
    ...competitors.map((c, i) => {
      const near = c.near === null ? '' : `, beside ${c.near.handle} ${rankText(c.near.rank)}`;
      return `  ${String(i + 1).padStart(digits)}. ${c.handle.padEnd(width)}  ${name(c.name, 32)}  #${c.rank} in ${c.category}${near}`;
    }),
  ];
}

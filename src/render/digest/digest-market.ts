/**
 * What the digest's Market section says (digest/market.ts), in plain unescaped text shared by the Slack,
 * HTML and text renderings, and the section for each of them. Category and app names, entrants' names and
 * listing changes come from the marketplace: each renderer escapes them for where they go.
 */
import type { CompetitorChanges, DigestMarket, MarketCategory, MarketRank } from '../../digest/market.js';
import { plural } from '../../util/plural.js';
import { COLORS, cell, colored, dataTable, heading, muted, paragraph, row } from '../email-blocks.js';
import { escapeHtml, escapeMrkdwn, oneLine, truncate } from '../escape.js';
import { appTitle, dayLabel } from './digest-wording.js';

const MAX_NAME = 80;

/** The own apps worth a line in a category: those ranked there at the end or a week before. */
export function rankedOwn(category: MarketCategory): MarketRank[] {
  return category.own.filter((r) => r.rank !== null || r.before !== null);
}

/** "▲3", "▼8", "±0"; "" when it cannot be told. */
export function moveLabel(rank: MarketRank): string {
  if (rank.rank !== null && rank.before === null) return rank.compared ? 'new in the tracked pages' : '';
  if (rank.rank === null) return rank.before === null ? '' : `left the tracked pages (was #${rank.before})`;
  if (rank.move === null) return '';
  return rank.move === 0 ? '±0' : `${rank.move > 0 ? '▲' : '▼'}${Math.abs(rank.move)} (from #${rank.before})`;
}

/** "#14 ▼8 (from #6)", "#30 new in the tracked pages", "left the tracked pages (was #44)". */
export function rankSentence(rank: MarketRank): string {
  const move = moveLabel(rank);
  if (rank.rank === null) return move || 'not in the tracked pages';
  return move === '' ? `#${rank.rank}` : `#${rank.rank} ${move}`;
}

/** Where the ranks come from: "store-design (the top 46 tracked, as of 22 Nov 2026)". */
export function categoryLabel(category: MarketCategory, timezone: string): string {
  if (category.at === null) return `${category.handle} (no snapshot yet)`;
  const depth = category.depth === null ? '' : `the top ${category.depth} tracked, `;
  return `${category.handle} (${depth}as of ${dayLabel(category.at, timezone)})`;
}

/** "Bundle Kit Express came in at #31 (19 Nov 2026)" */
export function entrantSentence(entrant: MarketCategory['entrants'][number], timezone: string): string {
  const name = truncate(oneLine(entrant.name) || entrant.handle, MAX_NAME);
  return `${name} came in at ${entrant.rank === null ? 'the tracked pages' : `#${entrant.rank}`} (${dayLabel(entrant.at, timezone)})`;
}

/** "1 snapshot failed this week: a move then may be missed." */
export function failedNote(category: MarketCategory): string | undefined {
  return category.failedSnapshots === 0
    ? undefined
    : `${plural(category.failedSnapshots, 'snapshot')} failed in this period: ranks then are not known.`;
}

export function changeLine(change: CompetitorChanges['changes'][number], timezone: string): string {
  return `${dayLabel(change.at, timezone)}: ${change.text}`;
}

export function moreChanges(competitor: CompetitorChanges): string | undefined {
  const rest = competitor.total - competitor.changes.length;
  return rest > 0 ? `… and ${plural(rest, 'more change')}` : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Slack

/** Slack gets a summary: this many categories and competitors at most, the rest counted. */
const SLACK_CATEGORIES = 8;
const SLACK_COMPETITORS = 5;

/** The section as mrkdwn entries, one per category and one per competitor (escaped). */
export function marketSlackEntries(market: DigestMarket, timezone: string): string[] {
  const entries: string[] = [];
  for (const category of market.categories.slice(0, SLACK_CATEGORIES)) {
    const lines = [`*${escapeMrkdwn(categoryLabel(category, timezone))}*`];
    for (const rank of rankedOwn(category)) {
      lines.push(`• ${escapeMrkdwn(appTitle(rank))}: ${escapeMrkdwn(rankSentence(rank))}`);
    }
    if (category.at !== null && rankedOwn(category).length === 0)
      lines.push('• none of your apps ranks here');
    for (const entrant of category.entrants.slice(0, 5)) {
      lines.push(`• _new entrant:_ ${escapeMrkdwn(entrantSentence(entrant, timezone))}`);
    }
    if (category.entrants.length > 5) lines.push(`• … and ${category.entrants.length - 5} more new entrants`);
    const failed = failedNote(category);
    if (failed) lines.push(`_${escapeMrkdwn(failed)}_`);
    entries.push(truncate(lines.join('\n'), 1_500));
  }
  for (const competitor of market.competitors.slice(0, SLACK_COMPETITORS)) {
    const lines = [`*${escapeMrkdwn(appTitle(competitor))}* _(competitor)_ changed its listing:`];
    for (const change of competitor.changes) lines.push(`• ${escapeMrkdwn(changeLine(change, timezone))}`);
    const more = moreChanges(competitor);
    if (more) lines.push(`• ${more}`);
    entries.push(truncate(lines.join('\n'), 1_500));
  }
  const categories = market.categories.length - SLACK_CATEGORIES;
  const competitors = market.competitors.length - SLACK_COMPETITORS;
  const rest = [
    ...(categories > 0 ? [plural(categories, 'more category', 'more categories')] : []),
    ...(competitors > 0 ? [plural(competitors, 'more competitor')] : []),
  ];
  if (rest.length > 0)
    entries.push(`_… and ${rest.join(' and ')}: see the email digest or the inbox's market page._`);
  return entries;
}

// ---------------------------------------------------------------------------------------------------------
// Email: HTML and text

function moveColor(rank: MarketRank): string | undefined {
  if (rank.rank === null && rank.before !== null) return COLORS.down;
  if (rank.move === null || rank.move === 0)
    return rank.rank !== null && rank.before === null && rank.compared ? COLORS.up : undefined;
  return rank.move > 0 ? COLORS.up : COLORS.down;
}

const TONE_COLORS: Record<string, string | undefined> = {
  up: COLORS.down,
  down: COLORS.up,
  added: undefined,
  removed: undefined,
  changed: undefined,
};

/** The HTML rows of the section (escaped). */
export function marketHtmlRows(market: DigestMarket, timezone: string): string[] {
  const rows = [row(heading('Market', 3))];
  for (const category of market.categories) {
    const ranked = rankedOwn(category);
    const table =
      ranked.length === 0
        ? paragraph(
            muted(category.at === null ? 'No snapshot yet.' : 'None of your apps ranks here.'),
            'font-size:14px;',
          )
        : dataTable(
            [{ text: 'Your app' }, { text: 'Rank', align: 'right' }, { text: 'Over the week' }],
            ranked.map(
              (r) =>
                `<tr>${cell(escapeHtml(appTitle(r)))}${cell(r.rank === null ? muted('—') : `#${r.rank}`, 'text-align:right;white-space:nowrap;')}${cell(colored(moveLabel(r) || '—', moveColor(r)))}</tr>`,
            ),
          );
    const entrants =
      category.entrants.length === 0
        ? ''
        : paragraph(
            `New entrants: ${category.entrants
              .slice(0, 10)
              .map((e) => escapeHtml(entrantSentence(e, timezone)))
              .join(
                '; ',
              )}${category.entrants.length > 10 ? `; … and ${category.entrants.length - 10} more` : ''}.`,
            'font-size:14px;margin:6px 0 0;',
          );
    const failed = failedNote(category);
    rows.push(
      row(
        `<div style="font-size:14px;font-weight:bold;margin:0 0 4px;">${escapeHtml(categoryLabel(category, timezone))}</div>` +
          table +
          entrants +
          (failed ? paragraph(muted(failed), 'font-size:13px;margin:6px 0 0;') : ''),
      ),
    );
  }
  if (market.competitors.length > 0) {
    const lists = market.competitors.map((competitor) => {
      const items = competitor.changes.map(
        (c) =>
          `<li style="margin:0 0 2px;">${muted(`${dayLabel(c.at, timezone)}:`)} ${colored(c.text, TONE_COLORS[c.tone])}</li>`,
      );
      const more = moreChanges(competitor);
      if (more) items.push(`<li>${muted(more)}</li>`);
      return `<div style="font-size:14px;margin:0 0 8px;"><strong>${escapeHtml(appTitle(competitor))}</strong> ${muted('(competitor)')}<ul style="margin:4px 0 0;padding-left:20px;">${items.join('')}</ul></div>`;
    });
    rows.push(
      row(
        `<div style="font-size:14px;font-weight:bold;margin:0 0 4px;">Competitors' listing changes</div>${lists.join('')}`,
      ),
    );
  }
  return rows;
}

/** The text section. */
export function marketText(market: DigestMarket, timezone: string): string {
  const lines = ['MARKET'];
  for (const category of market.categories) {
    lines.push('', categoryLabel(category, timezone));
    const ranked = rankedOwn(category);
    if (ranked.length === 0)
      lines.push(category.at === null ? '  no snapshot yet' : '  none of your apps ranks here');
    for (const r of ranked) lines.push(`  ${appTitle(r)}: ${rankSentence(r)}`);
    for (const e of category.entrants.slice(0, 10))
      lines.push(`  new entrant: ${entrantSentence(e, timezone)}`);
    if (category.entrants.length > 10)
      lines.push(`  … and ${category.entrants.length - 10} more new entrants`);
    const failed = failedNote(category);
    if (failed) lines.push(`  ${failed}`);
  }
  for (const competitor of market.competitors) {
    lines.push('', `${appTitle(competitor)} (competitor) changed its listing:`);
    for (const change of competitor.changes) lines.push(`  - ${changeLine(change, timezone)}`);
    const more = moreChanges(competitor);
    if (more) lines.push(`  ${more}`);
  }
  return lines.join('\n');
}

/**
 * What a market alert says, in plain unescaped text: its headline, facts, the lines under it (why a rank
 * moved, what a listing changed, who entered) and its links. Slack, email and the console all render a
 * market alert from this one document, so they tell the same story. Names, titles and plan names come
 * from the marketplace: they are cleaned and capped here, and escaped by each channel.
 */
import type {
  CategoryRef,
  DeveloperAppsAlert,
  EntrantRef,
  ListingChangeAlert,
  MarketAlert,
  NewEntrantsAlert,
  RankMoveAlert,
} from '../../alerts/types.js';
import { isMarketKind } from '../../kinds.js';
import { describeChange, type RankReason } from '../../market/index.js';
import type { Priority } from '../../scoring/priority.js';
import { assertNever } from '../../util/never.js';
import { plural } from '../../util/plural.js';
import { oneLine, truncate } from '../escape.js';
import {
  appLinks,
  appName,
  type DataSource,
  type Fact,
  type Link,
  priorityLabel,
  safeUrl,
} from '../wording.js';

const MAX_NAME = 100;
/** Lines under a market alert: enough to explain, never a wall. */
const MAX_LINES = 12;
const MAX_LINE = 400;
/** Apps named in one reason ("passed by …"). */
const MAX_APPS_NAMED = 5;

export interface MarketDoc {
  /** With its sign (▼ ▲ ⇅ ✦ ✎ ⊕). */
  title: string;
  priority: Priority;
  summary?: string;
  facts: Fact[];
  /** What the lines are: "Why it may have happened", "What changed", "New entrants". */
  linesLabel: string;
  lines: string[];
  links: Link[];
}

/** What each kind of alert says; its priority (the alert's) and its links are the same rule for all. */
type DocContent = Omit<MarketDoc, 'priority' | 'links'>;

function name(text: string, fallback: string): string {
  return truncate(oneLine(text) || oneLine(fallback) || 'unnamed', MAX_NAME);
}

export function categoryName(category: CategoryRef): string {
  return name(category.name, category.handle);
}

function rank(n: number | null): string {
  return n === null ? 'out of the tracked pages' : `#${n}`;
}

function named<T>(items: readonly T[], each: (item: T) => string): string {
  const shown = items.slice(0, MAX_APPS_NAMED).map(each);
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${plural(more, 'more app')}` : shown.join('; ');
}

// ---------------------------------------------------------------------------------------------------------
// Rank moves

export function rankHeadline(alert: RankMoveAlert): string {
  const { move } = alert;
  const app = appName(alert.app);
  const where = categoryName(alert.category);
  const top =
    move.topN === 'left' ? ', out of the top 10' : move.topN === 'entered' ? ', into the top 10' : '';
  switch (move.kind) {
    case 'fell':
      return `▼ ${app} fell from ${rank(move.from)} to ${rank(move.to)} in ${where}${top}`;
    case 'rose':
      return `▲ ${app} rose from ${rank(move.from)} to ${rank(move.to)} in ${where}${top}`;
    case 'entered':
      return `▲ ${app} entered the tracked pages of ${where} at ${rank(move.to)}${top}`;
    case 'left':
      return `▼ ${app} left the tracked pages of ${where} (usually ${rank(move.from)})`;
  }
}

/** One line per reason the detector found (market/rank-alerts.ts): always at least one. */
export function rankReasons(alert: RankMoveAlert): string[] {
  const named = (h: string) => name(alert.names?.[h] ?? h, h);
  const lines: string[] = [];
  const own: Array<Extract<RankReason, { kind: 'own-event' }>['event']> = [];
  for (const reason of alert.move.reasons) {
    if (reason.kind === 'own-event') own.push(reason.event);
    else if (reason.kind === 'sponsored')
      lines.push(
        reasonLine(
          { ...reason, gained: reason.gained.map(named), lost: reason.lost.map(named) },
          alert.move.kind,
        ),
      );
    else lines.push(reasonLine(reason, alert.move.kind));
  }
  // Its own rating drops and incidents in one line: the latest said, the others counted.
  const latest = own.at(-1);
  if (latest) {
    const drops = own.filter((e) => e.kind === 'rating-drop').length;
    const incidents = own.length - drops;
    const counted = [
      drops > 0 ? plural(drops, 'rating drop') : '',
      incidents > 0 ? plural(incidents, 'possible incident') : '',
    ].filter(Boolean);
    lines.push(`Its own reviews: ${counted.join(' and ')} lately (the latest: ${oneLine(latest.summary)})`);
  }
  return lines.length > 0 ? lines : [NOTHING_EXPLAINS];
}

const NOTHING_EXPLAINS =
  'Nothing we read explains it: no app passed it with a listing change, no new entrant or ad above it, and no rating drop or incident of its own.';

function reasonLine(reason: RankReason, kind: RankMoveAlert['move']['kind']): string {
  const falling = kind === 'fell' || kind === 'left';
  switch (reason.kind) {
    case 'passed': {
      const apps = named(reason.apps, (a) => {
        const moved = `${name(a.name, a.handle)} (${rank(a.from)} → ${rank(a.to)}`;
        return a.changes.length > 0 ? `${moved}: ${a.changes.slice(0, 2).join(', ')})` : `${moved})`;
      });
      return falling
        ? `Passed by ${plural(reason.apps.length, 'app')}: ${apps}`
        : `It passed ${plural(reason.apps.length, 'app')}: ${apps}`;
    }
    case 'new-entrants':
      return `New in the category, above it: ${named(reason.apps, (a) => `${name(a.name, a.handle)} at #${a.rank}`)}`;
    case 'returned':
      return `Back in the tracked pages, above it: ${named(reason.apps, (a) => `${name(a.name, a.handle)} at #${a.rank}`)}`;
    case 'sponsored': {
      const parts = [
        reason.gained.length > 0 ? `${named(reason.gained, (h) => h)} took a sponsored slot` : '',
        reason.lost.length > 0 ? `${named(reason.lost, (h) => h)} no longer holds one` : '',
      ].filter(Boolean);
      return `Sponsored slots changed: ${parts.join('; ')}`;
    }
    case 'own-sponsored':
      return reason.change === 'gained'
        ? 'It holds a sponsored slot now'
        : 'It no longer holds a sponsored slot';
    case 'rating':
      return `Its listed rating went from ${reason.from.toFixed(1)} to ${reason.to.toFixed(1)}`;
    case 'badge':
      return reason.change === 'gained' ? 'It gained the Built-for badge' : 'It lost the Built-for badge';
    case 'own-event':
      return `${reason.event.kind === 'incident' ? 'A possible incident' : 'A rating drop'} of its own: ${oneLine(reason.event.summary)}`;
    case 'own-listing':
      return `Its own listing changed: ${reason.changes.slice(0, 3).join('; ')}`;
    case 'category-shift':
      return `The apps around it moved ${Math.abs(reason.places)} ${Math.abs(reason.places) === 1 ? 'place' : 'places'} ${reason.places > 0 ? 'down' : 'up'} too: the category shifted`;
    case 'none':
      return NOTHING_EXPLAINS;
  }
}

function rankDoc(alert: RankMoveAlert): DocContent {
  const { move } = alert;
  const facts: Fact[] = [
    { label: 'Category', value: categoryName(alert.category) },
    {
      label: 'Rank',
      value: `${rank(move.from)} → ${rank(move.to)} (${move.previous === move.to ? 'at both of the last two snapshots' : `${rank(move.previous)} at the snapshot before`})`,
    },
    { label: 'Usual wobble', value: `±${move.band} places` },
  ];
  if (move.ownMove !== null) {
    facts.push({
      label: 'Its own move',
      value: `${Math.abs(move.ownMove)} places beyond the category's shift`,
    });
  }
  facts.push({ label: 'Priority', value: priorityLabel(alert.priority) });
  return {
    title: rankHeadline(alert),
    summary:
      'Organic rank (ads apart), beyond its usual wobble over two snapshots, and not the whole category moving.',
    facts,
    linesLabel: 'Why it may have happened',
    lines: rankReasons(alert),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Reshuffles, entrants

export function reshuffleHeadline(alert: MarketAlert & { kind: 'reshuffle' }): string {
  const { compared, moved } = alert.reshuffle;
  return `⇅ ${categoryName(alert.category)} reshuffled: ${moved} of ${compared} apps moved 3 places or more`;
}

function entrantLine(app: EntrantRef): string {
  const parts = [`#${app.rank} ${name(app.name, app.handle)}`];
  const developer = oneLine(app.developer);
  if (developer !== '') parts.push(`by ${truncate(developer, MAX_NAME)}`);
  if (app.rating !== null) parts.push(`rated ${app.rating.toFixed(1)}`);
  if (app.builtFor) parts.push('Built for the platform');
  if (app.listing) {
    const pricing = oneLine(app.listing.pricing);
    const plans = app.listing.plans
      .slice(0, 3)
      .map((p) => `${truncate(oneLine(p.name), 40)} ${truncate(oneLine(p.price), 40)}`);
    if (pricing !== '') parts.push(`pricing: ${truncate(pricing, 80)}`);
    if (plans.length > 0) parts.push(`plans: ${plans.join(', ')}`);
  }
  return parts.join(' · ');
}

export function entrantsHeadline(alert: NewEntrantsAlert): string {
  return `✦ ${plural(alert.apps.length, 'new app')} in ${categoryName(alert.category)}`;
}

// ---------------------------------------------------------------------------------------------------------
// Listings, developers

export function listingHeadline(alert: ListingChangeAlert): string {
  const [first] = alert.changes;
  const what = first ? describeChange(first) : 'listing changed';
  const more = alert.changes.length > 1 ? ` (+${alert.changes.length - 1} more)` : '';
  const whose = alert.role === 'competitor' ? 'Competitor ' : '';
  return `✎ ${whose}${appName(alert.app)}: ${what}${more}`;
}

export function developerHeadline(alert: DeveloperAppsAlert): string {
  const who = name(alert.developer.name, alert.developer.handle);
  const parts = [
    alert.published.length > 0 ? `published ${plural(alert.published.length, 'app')}` : '',
    alert.removed.length > 0 ? `removed ${plural(alert.removed.length, 'app')}` : '',
  ].filter(Boolean);
  return `⊕ ${who} ${parts.join(' and ')}`;
}

// ---------------------------------------------------------------------------------------------------------
// The document and its links

/** Where the inbox shows what the alert is about (`web.publicUrl`), then the listing itself. */
export function marketLinks(alert: MarketAlert, source: DataSource): Link[] {
  const base = source.inboxUrl ? safeUrl(source.inboxUrl) : undefined;
  const inbox = (label: string, path: string): Link[] =>
    base === undefined ? [] : [{ label, url: new URL(path, base).href }];
  const category = (c: CategoryRef) => `/categories/${encodeURIComponent(c.handle)}`;
  const app = (handle: string) => `/apps/${encodeURIComponent(handle)}`;
  switch (alert.kind) {
    case 'rank':
      return [
        ...inbox('Open the category', category(alert.category)),
        ...inbox('Open the app', app(alert.app.handle)),
        ...appLinks(alert.app).slice(0, 1),
      ];
    case 'reshuffle':
    case 'entrants':
      return [
        ...inbox('Open the category', category(alert.category)),
        ...inbox('Market overview', '/market'),
      ];
    case 'listing':
      return [
        ...inbox('Open the app', app(alert.app.handle)),
        ...inbox('Market overview', '/market'),
        ...appLinks(alert.app).slice(0, 1),
      ];
    case 'developer':
      return inbox('Market overview', '/market');
    default:
      return assertNever(alert, 'market alert kind');
  }
}

function capLines(lines: readonly string[]): string[] {
  const shown = lines.slice(0, MAX_LINES).map((l) => truncate(oneLine(l), MAX_LINE));
  if (lines.length > MAX_LINES) shown.push(`… and ${lines.length - MAX_LINES} more`);
  return shown;
}

export function marketDoc(alert: MarketAlert, source: DataSource): MarketDoc {
  const links = marketLinks(alert, source);
  let doc: DocContent;
  switch (alert.kind) {
    case 'rank':
      doc = rankDoc(alert);
      break;
    case 'reshuffle': {
      const own = alert.reshuffle.ownApps.filter((a) => a.from !== null || a.to !== null);
      doc = {
        title: reshuffleHeadline(alert),
        summary:
          'The marketplace reordered the category: most apps moved at once, so no one app did this. Rank alerts wait until the apps settle at their new levels.',
        facts: [
          { label: 'Category', value: categoryName(alert.category) },
          { label: 'Priority', value: priorityLabel(alert.priority) },
        ],
        linesLabel: 'Your apps',
        lines: own.map((a) => `${name(a.name, a.handle)}: ${rank(a.from)} → ${rank(a.to)}`),
      };
      break;
    }
    case 'entrants':
      doc = {
        title: entrantsHeadline(alert),
        summary: 'Apps the tracked pages of this category had never ranked before.',
        facts: [{ label: 'Category', value: categoryName(alert.category) }],
        linesLabel: 'New entrants',
        lines: alert.apps.map(entrantLine),
      };
      break;
    case 'listing':
      doc = {
        title: listingHeadline(alert),
        facts: [
          { label: 'App', value: `${appName(alert.app)} (${alert.role})` },
          { label: 'Priority', value: priorityLabel(alert.priority) },
        ],
        linesLabel: 'What changed',
        lines: alert.changes.map((c) => describeChange(c)),
      };
      break;
    case 'developer':
      doc = {
        title: developerHeadline(alert),
        facts: [
          {
            label: 'Developer of',
            value: alert.apps.map((a) => appName(a)).join(', ') || 'a watched app',
          },
        ],
        linesLabel: 'Apps',
        lines: [
          ...alert.published.map(
            (a) =>
              `Published: ${name(a.name, a.url)}${oneLine(a.category) ? ` (${truncate(oneLine(a.category), 60)})` : ''}`,
          ),
          ...alert.removed.map((a) => `Removed: ${name(a.name, a.url)}`),
        ],
      };
      break;
    default:
      return assertNever(alert, 'market alert kind');
  }
  return { ...doc, priority: alert.priority, lines: capLines(doc.lines), links };
}

/** The short subject of a market alert's email. */
export function marketSubject(alert: MarketAlert): string {
  return marketDoc(alert, {}).title;
}

/** Derived from the table of kinds (src/kinds.ts): a new market kind needs no edit here. */
export function isMarketAlert(alert: { kind: string }): alert is MarketAlert {
  return isMarketKind(alert.kind);
}

/**
 * What moved (`/market`'s feed, an app's rank section): the market alerts raised lately, each with the
 * explanation its message gave (render/alert/market-wording.ts builds both), the category and the apps
 * it names, to link to. Read from the alerts as stored, so the page and the message never disagree.
 */
import type { MarketAlert } from '../../alerts/types.js';
import { marketDoc } from '../../render/alert/market-wording.js';
import type { Db } from '../../store/db.js';
import { type FeedKind, marketAlertsBetween } from '../../store/market/alerts.js';
import { latestSnapshots } from '../../store/market/snapshots.js';
import type { AlertMove } from './rank-story.js';

export interface MoveItem {
  id: number;
  kind: FeedKind;
  at: Date;
  priority: string;
  category: { handle: string; name: string } | null;
  /** The apps it is about or names (passed by, entered), each with a page. */
  apps: Array<{ handle: string; name: string }>;
  /** The message's headline, with its sign, and the lines under it. */
  title: string;
  linesLabel: string;
  lines: string[];
  /** A rank alert's move: the app's level to its rank then. */
  move?: AlertMove;
  /** The app a rank or listing alert is about. */
  subject?: string;
}

function appsNamed(alert: MarketAlert): Array<{ handle: string; name: string }> {
  switch (alert.kind) {
    case 'rank': {
      const named = alert.move.reasons.flatMap((r) =>
        r.kind === 'passed' || r.kind === 'new-entrants' || r.kind === 'returned'
          ? r.apps.map((a) => ({ handle: a.handle, name: a.name }))
          : [],
      );
      return [{ handle: alert.app.handle, name: alert.app.name || alert.app.handle }, ...named];
    }
    case 'entrants':
      return alert.apps.map((a) => ({ handle: a.handle, name: a.name }));
    case 'reshuffle':
      return alert.reshuffle.ownApps.map((a) => ({ handle: a.handle, name: a.name }));
    case 'listing':
      return [{ handle: alert.app.handle, name: alert.app.name || alert.app.handle }];
    case 'developer':
      return alert.apps.map((a) => ({ handle: a.handle, name: a.name || a.handle }));
  }
}

/** The market alerts raised in [since, until), newest first, as the feed lists them. */
export function marketMoves(db: Db, since: Date, until: Date): MoveItem[] {
  return marketAlertsBetween(db, since, until).map((row) => {
    const alert = row.payload as MarketAlert;
    const doc = marketDoc(alert, {});
    const category = 'category' in alert ? alert.category : null;
    const item: MoveItem = {
      id: row.id,
      kind: row.kind,
      at: row.createdAt,
      priority: row.priority,
      category: category ? { handle: category.handle, name: category.name || category.handle } : null,
      apps: unique(appsNamed(alert)),
      title: doc.title,
      linesLabel: doc.linesLabel,
      lines: doc.lines,
    };
    if (alert.kind === 'rank') {
      item.subject = alert.app.handle;
      item.move = {
        kind: alert.move.kind,
        from: alert.move.from,
        to: alert.move.to,
        at: row.createdAt,
        alertId: row.id,
      };
    }
    if (alert.kind === 'listing') item.subject = alert.app.handle;
    return item;
  });
}

function unique<T extends { handle: string }>(apps: readonly T[]): T[] {
  const seen = new Set<string>();
  return apps.filter((a) => !seen.has(a.handle) && seen.add(a.handle));
}

/** The moves that concern an app: its own alerts, those naming it, and its categories' reshuffles. */
export function movesOfApp(moves: readonly MoveItem[], handle: string, categories: ReadonlySet<string>) {
  return moves.filter(
    (m) =>
      m.subject === handle ||
      m.apps.some((a) => a.handle === handle) ||
      (m.kind === 'reshuffle' && m.category !== null && categories.has(m.category.handle)),
  );
}

/** The latest rank alert of each app in each category, keyed `category app`. */
export function lastAlertMoves(moves: readonly MoveItem[]): Map<string, AlertMove> {
  const out = new Map<string, AlertMove>();
  for (const m of moves) {
    if (!m.move || !m.category || !m.subject) continue;
    const key = `${m.category.handle} ${m.subject}`;
    if (!out.has(key)) out.set(key, m.move);
  }
  return out;
}

/** Each category's name: the latest snapshot's, else the handle (snapshots before names were kept). */
export function categoryNames(db: Db, handles: readonly string[]): Map<string, string> {
  const latest = latestSnapshots(db, handles);
  return new Map(handles.map((h) => [h, latest.get(h)?.name?.trim() || h]));
}

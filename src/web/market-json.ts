/**
 * The JSON of the market endpoints (`/api/market`, `/api/categories/:handle`, `/api/apps/:handle/changes`),
 * documented in docs/inbox.md: dates as ISO strings, ranks organic (null: not in the tracked pages), moves
 * in places climbed (negative: fell), and each page's URL in the inbox.
 */
import {
  type AlertMove,
  alertMoveText,
  type CategoryRank,
  type CategoryView,
  type ChangeSummary,
  type ListingTimeline,
  type MarketOverview,
  type MoveItem,
  weekMoveText,
} from './market-views/index.js';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** A path of the inbox, absolute when `web.publicUrl` says where the inbox is. */
export function inboxUrl(path: string, publicUrl: string | undefined): string {
  return publicUrl ? new URL(path, publicUrl).href : path;
}

export const categoryPath = (handle: string) => `/categories/${handle}`;
export const appPath = (handle: string) => `/apps/${handle}`;

function changeJson(change: ChangeSummary) {
  return {
    id: change.id,
    at: iso(change.at),
    field: change.field,
    kind: change.kind,
    text: change.text,
    tone: change.tone,
    alerted: change.alerted,
  };
}

/** A rank alert's move: its numbers and the text every page gives it (market-views/rank-story.ts). */
function alertMoveJson(move: AlertMove | null) {
  return move
    ? { kind: move.kind, from: move.from, to: move.to, at: iso(move.at), text: alertMoveText(move) }
    : null;
}

/** Both sides of the rank story: the week's move (`move`, `week`) and the last rank alert's (`alert`). */
export function rankJson(r: CategoryRank) {
  return {
    category: r.category,
    rank: r.rank,
    sponsored: r.sponsored,
    at: iso(r.at),
    before: r.before ? { rank: r.before.rank, at: iso(r.before.at) } : null,
    move: r.move,
    week: weekMoveText(r),
    alert: alertMoveJson(r.alert),
  };
}

export function moveJson(m: MoveItem, publicUrl: string | undefined) {
  return {
    id: m.id,
    kind: m.kind,
    at: iso(m.at),
    priority: m.priority,
    category: m.category
      ? { ...m.category, url: inboxUrl(categoryPath(m.category.handle), publicUrl) }
      : null,
    apps: m.apps.map((a) => ({ ...a, url: inboxUrl(appPath(a.handle), publicUrl) })),
    title: m.title,
    linesLabel: m.linesLabel,
    lines: m.lines,
    move: m.move ? alertMoveJson(m.move) : null,
  };
}

export function overviewJson(overview: MarketOverview, publicUrl: string | undefined) {
  return {
    at: iso(overview.at),
    categories: overview.categories.map((c) => ({
      handle: c.handle,
      name: c.name,
      url: inboxUrl(categoryPath(c.handle), publicUrl),
      state: c.state,
      lastSnapshotAt: iso(c.lastSnapshotAt),
      depth: c.depth,
      unavailableSince: iso(c.unavailableSince),
      lastError: c.lastError,
    })),
    apps: overview.apps.map((app) => ({
      handle: app.handle,
      name: app.name,
      role: app.role,
      url: inboxUrl(appPath(app.handle), publicUrl),
      rating: app.rating,
      ratingChange: app.ratingChange,
      ratingSince: iso(app.ratingSince),
      openLowReviews: app.openLow,
      ranks: app.ranks.map(rankJson),
      lastChange: app.lastChange
        ? { at: iso(app.lastChange.at), changes: app.lastChange.changes.map(changeJson) }
        : null,
    })),
    moves: overview.moves.map((m) => moveJson(m, publicUrl)),
  };
}

export function categoryJson(view: CategoryView, publicUrl: string | undefined) {
  return {
    handle: view.handle,
    name: view.name,
    url: inboxUrl(categoryPath(view.handle), publicUrl),
    since: iso(view.since),
    until: iso(view.until),
    state: view.status.state,
    lastSnapshotAt: iso(view.status.lastSnapshotAt),
    depth: view.status.depth,
    unavailableSince: iso(view.status.unavailableSince),
    lastError: view.status.lastError,
    snapshots: view.snapshots,
    gaps: view.gaps.map((g) => ({
      from: iso(g.from),
      to: iso(g.to),
      snapshots: g.snapshots,
      status: g.status,
    })),
    series: view.series.map((s) => ({
      handle: s.handle,
      name: s.name,
      role: s.role,
      rank: s.rank,
      move: s.move,
      week: s.story ? weekMoveText(s.story) : null,
      alert: alertMoveJson(s.story?.alert ?? null),
      points: s.points.map((p) => ({ at: iso(p.at), rank: p.rank })),
    })),
    events: view.events.map((e) => ({ ...e, at: iso(e.at) })),
    moves: view.moves.map((m) => moveJson(m, publicUrl)),
    top: view.top,
    entrants: view.entrants.map((e) => ({ ...e, at: iso(e.at) })),
    exits: view.exits.map((e) => ({ ...e, at: iso(e.at) })),
    sponsored: {
      now: view.sponsored.now,
      changes: view.sponsored.changes.map((c) => ({ ...c, at: iso(c.at) })),
    },
  };
}

export function changesJson(handle: string, timeline: ListingTimeline, publicUrl: string | undefined) {
  return {
    app: handle,
    url: inboxUrl(`${appPath(handle)}#listing`, publicUrl),
    versions: timeline.versions.map((v) => ({
      versionId: v.versionId,
      at: iso(v.at),
      changes: v.changes.map((c, i) => ({ ...changeJson(c), change: v.rows[i]?.change ?? null })),
    })),
    next: timeline.next === undefined ? null : String(timeline.next),
  };
}

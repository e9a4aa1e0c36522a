/**
 * A category's ranks over time as a server-drawn SVG, in the style of charts.ts: rank 1 at the top, one
 * line per app. A line breaks where the app was not in the tracked pages and where a snapshot failed: a
 * failed snapshot is a hatched band, never a rank (and never rank 0). Colours come from the stylesheet.
 */
import { html, type SafeHtml } from './html.js';

const NARROW = 640;
const WIDE = 960;
const HEIGHT = 260;
const PAD = { left: 40, right: 12, top: 12, bottom: 24 };
/** Series colours in the stylesheet (.r0 … .r9). */
export const SERIES_COLOURS = 10;

const round = (n: number) => Math.round(n * 10) / 10;
const day = (d: Date) => d.toISOString().slice(0, 10);

export interface ChartSeries {
  name: string;
  own: boolean;
  points: ReadonlyArray<{ at: Date; rank: number | null }>;
}

export interface ChartGap {
  from: Date;
  to: Date;
  snapshots: number;
}

export interface RankChartInput {
  since: Date;
  until: Date;
  /** Organic places the tracked pages covered in the latest snapshot: the chart's floor. */
  depth: number | null;
  series: readonly ChartSeries[];
  gaps: readonly ChartGap[];
  title: string;
  /** The SVG title's id: unique on its page (an app's page may draw more than one chart). */
  id?: string;
  /** Drawn across the page's full width (a category's page), not at the column's. */
  wide?: boolean;
  /** What may explain the moves: one marker each, its label as its tooltip. */
  events?: ReadonlyArray<{ at: Date; kind: string; label: string }>;
}

/** Rank ticks that read: #1, #5, #10, #20, #30, #50 … down to the chart's floor. */
const RANK_TICKS = [1, 5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 500];

export function rankTicks(floor: number): number[] {
  const ticks = RANK_TICKS.filter((t) => t <= floor);
  const last = ticks.at(-1) ?? 1;
  // The floor itself when it is well below the last round tick: where the tracked pages end.
  if (floor - last >= Math.max(3, last / 4)) ticks.push(floor);
  return ticks;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const TIME_STEPS = [
  HOUR_MS,
  3 * HOUR_MS,
  6 * HOUR_MS,
  12 * HOUR_MS,
  DAY_MS,
  2 * DAY_MS,
  7 * DAY_MS,
  14 * DAY_MS,
  30 * DAY_MS,
];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Dates on the x axis: at most `max` round times (UTC) between t0 and t1, labelled as days or hours. */
export function timeTicks(t0: number, t1: number, max = 6): Array<{ at: number; label: string }> {
  const step = TIME_STEPS.find((s) => (t1 - t0) / s <= max) ?? Math.ceil((t1 - t0) / max / DAY_MS) * DAY_MS;
  const ticks: Array<{ at: number; label: string }> = [];
  for (let at = Math.ceil(t0 / step) * step; at <= t1; at += step) {
    const d = new Date(at);
    const dayLabel = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
    ticks.push({
      at,
      label: step < DAY_MS ? `${dayLabel} ${d.toISOString().slice(11, 16)}` : dayLabel,
    });
  }
  return ticks;
}

/** The SVG; a short note instead when there is nothing to draw. */
export function rankChart(input: RankChartInput): SafeHtml {
  const ranked = input.series.flatMap((s) => s.points.flatMap((p) => (p.rank === null ? [] : [p.rank])));
  if (input.series.every((s) => s.points.length === 0) && input.gaps.length === 0) {
    return html`<p class="muted">No snapshot of this category in this period yet.</p>`;
  }
  const floor = Math.max(10, input.depth ?? 0, ...ranked);
  // A history shorter than the span starts where it starts: the chart does not squeeze it into a corner.
  const first = Math.min(
    ...input.series.flatMap((s) => s.points.map((p) => p.at.getTime())),
    ...input.gaps.map((g) => g.from.getTime()),
  );
  const t0 = Math.max(input.since.getTime(), Number.isFinite(first) ? first : input.since.getTime());
  const t1 = Math.max(input.until.getTime(), t0 + 1);
  const WIDTH = input.wide ? WIDE : NARROW;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (t: number) => round(PAD.left + ((t - t0) / (t1 - t0)) * plotW);
  const y = (rank: number) => round(PAD.top + ((rank - 1) / Math.max(1, floor - 1)) * plotH);
  // Every successful snapshot's time: a gap's band reaches from the one before it to the one after.
  const times = [...new Set(input.series.flatMap((s) => s.points.map((p) => p.at.getTime())))].sort(
    (a, b) => a - b,
  );
  const bands = input.gaps.map((gap) => {
    const before = times.filter((t) => t < gap.from.getTime()).at(-1) ?? gap.from.getTime();
    const after = times.find((t) => t > gap.to.getTime()) ?? gap.to.getTime();
    const left = x(before);
    return { gap, left, width: Math.max(3, round(x(after) - left)) };
  });
  const brokenBetween = (a: number, b: number) =>
    input.gaps.some((g) => g.from.getTime() > a && g.to.getTime() < b);

  const lines = input.series.map((series, i) => {
    let d = '';
    const dots: Array<{ cx: number; cy: number; rank: number; at: Date }> = [];
    let previous: { at: number; rank: number | null } | undefined;
    series.points.forEach((point, j) => {
      const at = point.at.getTime();
      if (point.rank !== null) {
        const joined = previous !== undefined && previous.rank !== null && !brokenBetween(previous.at, at);
        d += `${joined ? 'L' : 'M'}${x(at)} ${y(point.rank)} `;
        const next = series.points[j + 1];
        const alone =
          !joined && (next === undefined || next.rank === null || brokenBetween(at, next.at.getTime()));
        if (alone) dots.push({ cx: x(at), cy: y(point.rank), rank: point.rank, at: point.at });
      }
      previous = { at, rank: point.rank };
    });
    const last = [...series.points].reverse().find((p) => p.rank !== null);
    const label = `${series.name}: ${last ? `#${last.rank} on ${day(last.at)}` : 'not in the tracked pages'}`;
    const cls = `series r${i % SERIES_COLOURS}${series.own ? ' own' : ''}`;
    return html`<g class="${cls}"><title>${label}</title>${
      d === '' ? '' : html`<path d="${d.trim()}"></path>`
    }${dots.map((p) => html`<circle cx="${p.cx}" cy="${p.cy}" r="2.5"><title>${series.name}: #${p.rank} on ${day(p.at)}</title></circle>`)}</g>`;
  });

  const ticks = rankTicks(floor);
  const id = input.id ?? 'ranks-title';
  const events = (input.events ?? []).filter((e) => e.at.getTime() >= t0 && e.at.getTime() <= t1);
  return html`<svg class="chart ranks${input.wide ? ' wide' : ''}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}">
  <title id="${id}">${input.title}</title>
  <defs><pattern id="gap-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><line class="hatch" x1="0" y1="0" x2="0" y2="6"></line></pattern></defs>
  ${ticks.map(
    (
      rank,
    ) => html`<line class="grid${rank === 10 ? ' top10' : ''}" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(rank)}" y2="${y(rank)}"></line>
    <text class="axis" x="${PAD.left - 4}" y="${y(rank) + 4}" text-anchor="end">#${rank}</text>`,
  )}
  ${bands.map(
    (b) =>
      html`<rect class="gap" x="${b.left}" y="${PAD.top}" width="${b.width}" height="${plotH}"><title>${b.gap.snapshots} snapshot${b.gap.snapshots === 1 ? '' : 's'} failed (${day(b.gap.from)}${b.gap.snapshots > 1 ? ` to ${day(b.gap.to)}` : ''}): no ranks known</title></rect>`,
  )}
  ${events.map(
    (e) =>
      html`<g class="event ev-${e.kind}"><title>${e.label} (${e.at.toISOString().slice(0, 16).replace('T', ' ')} UTC)</title><line x1="${x(e.at.getTime())}" x2="${x(e.at.getTime())}" y1="${PAD.top}" y2="${PAD.top + plotH}"></line><circle cx="${x(e.at.getTime())}" cy="${PAD.top + plotH}" r="3.5"></circle></g>`,
  )}
  ${lines}
  ${timeTicks(t0, t1).map(
    (t) =>
      html`<line class="tick" x1="${x(t.at)}" x2="${x(t.at)}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH + 4}"></line><text class="axis" x="${x(t.at)}" y="${HEIGHT - 6}" text-anchor="middle">${t.label}</text>`,
  )}
</svg>`;
}

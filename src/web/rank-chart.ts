/**
 * A category's ranks over time as a server-drawn SVG, in the style of charts.ts: rank 1 at the top, one
 * line per app. A line breaks where the app was not in the tracked pages and where a snapshot failed: a
 * failed snapshot is a hatched band, never a rank (and never rank 0). Colours come from the stylesheet.
 */
import { scaleLinear, scaleUtc } from 'd3-scale';
import { line } from 'd3-shape';
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

const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Dates on the x axis: d3's round UTC times between t0 and t1 (at most about `max`), labelled "5 Nov", or
 * "5 Nov 12:00" when they are less than a day apart.
 */
export function timeTicks(t0: number, t1: number, max = 6): Array<{ at: number; label: string }> {
  const ticks = scaleUtc().domain([t0, t1]).ticks(max);
  const step = ticks.length > 1 ? (ticks[1] as Date).getTime() - (ticks[0] as Date).getTime() : DAY_MS;
  return ticks.map((d) => {
    const day = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
    return { at: d.getTime(), label: step < DAY_MS ? `${day} ${d.toISOString().slice(11, 16)}` : day };
  });
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
  const xScale = scaleUtc()
    .domain([t0, t1])
    .range([PAD.left, PAD.left + plotW]);
  const yScale = scaleLinear()
    .domain([1, Math.max(2, floor)])
    .range([PAD.top, PAD.top + plotH]);
  const x = (t: number) => round(xScale(t));
  const y = (rank: number) => round(yScale(rank));
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

  // A line breaks where its app is out of the tracked pages and across a failed snapshot's band.
  const path = line<{ at: number; rank: number | null }>()
    .defined((p) => p.rank !== null)
    .x((p) => x(p.at))
    .y((p) => y(p.rank ?? 1))
    .digits(1);
  const lines = input.series.map((series, i) => {
    const broken: Array<{ at: number; rank: number | null }> = [];
    const dots: Array<{ cx: number; cy: number; rank: number; at: Date }> = [];
    series.points.forEach((point, j) => {
      const at = point.at.getTime();
      const previous = series.points[j - 1];
      if (previous && brokenBetween(previous.at.getTime(), at)) broken.push({ at, rank: null });
      broken.push({ at, rank: point.rank });
      const next = series.points[j + 1];
      const joinedBefore =
        previous !== undefined && previous.rank !== null && !brokenBetween(previous.at.getTime(), at);
      const joinedAfter = next !== undefined && next.rank !== null && !brokenBetween(at, next.at.getTime());
      if (point.rank !== null && !joinedBefore && !joinedAfter)
        dots.push({ cx: x(at), cy: y(point.rank), rank: point.rank, at: point.at });
    });
    const d = broken.some((p) => p.rank !== null) ? (path(broken) ?? '') : '';
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

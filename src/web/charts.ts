/**
 * Server-rendered SVG charts for an app's page: no script in the browser; the scales and their ticks are
 * d3-scale's (docs/stack-notes.md), the markup the same escaping template as the pages', coloured by the
 * stylesheet's classes (the CSP forbids inline styles).
 */

import { scaleBand, scaleLinear, scaleUtc } from 'd3-scale';
import { plural } from '../util/plural.js';
import { html, type SafeHtml } from './html.js';

const WIDTH = 640;
const HEIGHT = 200;
/** Room for the axis labels at the size a phone draws them (inbox.css: 22 units where a desktop has 11). */
const PAD = { left: 56, right: 10, top: 16, bottom: 28 };

const day = (d: Date) => d.toISOString().slice(0, 10);
const round = (n: number) => Math.round(n * 10) / 10;

export interface LinePoint {
  at: Date;
  value: number;
}

export interface Marker {
  at: Date;
  label: string;
  kind: string;
  /** Ratings the alert quoted: the axis reaches them, so the chart shows what the alert said. */
  quoted?: readonly number[];
}

/** Fewer points than this are drawn as dots too: a line through two points hides that there are two. */
const SPARSE = 30;

/**
 * The average rating as a line, the rating the listing displays (one decimal) as a step line, and a
 * marker for each alert.
 */
export function ratingChart(
  points: readonly LinePoint[],
  markers: readonly Marker[],
  title: string,
): SafeHtml {
  if (points.length === 0) return html`<p class="muted">No rating recorded in this period.</p>`;
  const first = points[0] as LinePoint;
  const last = points[points.length - 1] as LinePoint;
  const start = Math.min(first.at.getTime(), ...markers.map((m) => m.at.getTime()));
  const end = Math.max(last.at.getTime(), ...markers.map((m) => m.at.getTime()));
  // A span of hours (or one point) is drawn within a day around it, not stretched edge to edge.
  const pad = Math.max(0, 86_400_000 - (end - start)) / 2;
  const t0 = start - pad;
  const t1 = Math.max(end + pad, t0 + 1);
  const values = [...points.map((p) => p.value), ...markers.flatMap((m) => m.quoted ?? [])];
  const yScale = scaleLinear()
    .domain([
      Math.max(1, Math.min(...values) - 0.05),
      Math.min(5, Math.max(Math.max(...values) + 0.05, Math.min(...values) + 0.1)),
    ])
    .nice(4)
    .range([HEIGHT - PAD.bottom, PAD.top]);
  const xScale = scaleUtc()
    .domain([t0, t1])
    .range([PAD.left, WIDTH - PAD.right]);
  const x = (t: number) => round(xScale(t));
  const y = (v: number) => round(yScale(v));
  const line = points.map((p) => `${x(p.at.getTime())},${y(p.value)}`).join(' ');
  const displayed = points
    .map((p, i) => {
      const shown = Math.round(p.value * 10) / 10;
      const next = points[i + 1];
      const end = next ? next.at.getTime() : p.at.getTime();
      return `${x(p.at.getTime())},${y(shown)} ${x(end)},${y(shown)}`;
    })
    .join(' ');
  const ticks = yScale.ticks(4);
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="rating-title">
  <title id="rating-title">${title}</title>
  ${ticks.map(
    (
      v,
    ) => html`<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v)}" y2="${y(v)}"></line>
    <text class="axis" x="${PAD.left - 4}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(2)}</text>`,
  )}
  <polyline class="displayed" points="${displayed}"></polyline>
  <polyline class="average" points="${line}"></polyline>
  ${
    points.length < SPARSE
      ? points.map(
          (p) =>
            html`<circle class="point" cx="${x(p.at.getTime())}" cy="${y(p.value)}" r="3"><title>${p.value.toFixed(2)} on ${day(p.at)}</title></circle>`,
        )
      : ''
  }
  ${markers.map(
    (m) =>
      html`<line class="marker m-${m.kind}" x1="${x(m.at.getTime())}" x2="${x(m.at.getTime())}" y1="${PAD.top}" y2="${HEIGHT - PAD.bottom}"><title>${m.label}</title></line>`,
  )}
  <text class="axis" x="${PAD.left}" y="${HEIGHT - 6}">${day(new Date(t0))}</text>
  <text class="axis" x="${WIDTH - PAD.right}" y="${HEIGHT - 6}" text-anchor="end">${day(new Date(t1))}</text>
</svg>`;
}

export interface StackedBar {
  label: string;
  /** Counts from 1 star to 5 stars. */
  values: readonly number[];
}

/** Weekly volume: one bar per week, stacked from 1 star (bottom) to 5 stars. */
export function stackedBars(bars: readonly StackedBar[], title: string): SafeHtml {
  const max = Math.max(1, ...bars.map((b) => b.values.reduce((a, n) => a + n, 0)));
  const xScale = scaleBand<number>()
    .domain(bars.map((_, i) => i))
    .range([PAD.left, WIDTH - PAD.right])
    .paddingInner(0.3)
    .paddingOuter(0.15);
  const yScale = scaleLinear()
    .domain([0, max])
    .range([HEIGHT - PAD.bottom, PAD.top + 8]);
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="volume-title">
  <title id="volume-title">${title}</title>
  <text class="axis" x="${PAD.left - 4}" y="${PAD.top + 8}" text-anchor="end">${max}</text>
  <text class="axis" x="${PAD.left - 4}" y="${HEIGHT - PAD.bottom}" text-anchor="end">0</text>
  ${bars.map((bar, i) => {
    let total = 0;
    const x = round(xScale(i) ?? PAD.left);
    const width = round(xScale.bandwidth());
    return html`<g><title>${bar.label}: ${plural(
      bar.values.reduce((a, n) => a + n, 0),
      'review',
    )} (${bar.values.map((n, s) => `${s + 1}★ ${n}`).join(', ')})</title>${bar.values.map((n, s) => {
      const bottom = yScale(total);
      total += n;
      const top = yScale(total);
      return n > 0
        ? html`<rect class="s${s + 1}" x="${x}" y="${round(top)}" width="${width}" height="${round(bottom - top)}"></rect>`
        : '';
    })}</g>`;
  })}
  ${bars.length > 0 ? html`<text class="axis" x="${PAD.left}" y="${HEIGHT - 6}">${bars[0]?.label}</text>` : ''}
  ${bars.length > 1 ? html`<text class="axis" x="${WIDTH - PAD.right}" y="${HEIGHT - 6}" text-anchor="end">${bars[bars.length - 1]?.label}</text>` : ''}
</svg>`;
}

/** The share of each star count, now against an earlier distribution, as paired horizontal bars. */
export function distributionBars(
  now: readonly number[],
  before: readonly number[] | undefined,
  labels: { now: string; before: string },
): SafeHtml {
  const share = (values: readonly number[]) => {
    const total = values.reduce((a, n) => a + n, 0);
    return values.map((n) => (total === 0 ? 0 : n / total));
  };
  const a = share(now);
  const b = before ? share(before) : undefined;
  const rowHeight = 30;
  const height = 5 * rowHeight + 10;
  const barWidth = scaleLinear()
    .domain([0, 1])
    .range([0, WIDTH - 150]);
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="distribution-title">
  <title id="distribution-title">Rating distribution: ${labels.now}${b ? ` against ${labels.before}` : ''}</title>
  ${[5, 4, 3, 2, 1].map((stars, row) => {
    const y = 5 + row * rowHeight;
    const nowShare = a[stars - 1] ?? 0;
    const beforeShare = b?.[stars - 1];
    return html`<text class="axis" x="38" y="${y + 15}" text-anchor="end">${stars}★</text>
    <rect class="s${stars}" x="44" y="${y}" width="${round(barWidth(nowShare))}" height="12"><title>${labels.now}: ${(nowShare * 100).toFixed(1)}%</title></rect>
    ${beforeShare === undefined ? '' : html`<rect class="before" x="44" y="${y + 13}" width="${round(barWidth(beforeShare))}" height="8"><title>${labels.before}: ${(beforeShare * 100).toFixed(1)}%</title></rect>`}
    <text class="axis" x="${round(52 + barWidth(nowShare))}" y="${y + 11}">${(nowShare * 100).toFixed(1)}%${beforeShare === undefined ? '' : html`<tspan class="was"> (was ${(beforeShare * 100).toFixed(1)}%)</tspan>`}</text>`;
  })}
</svg>`;
}

/**
 * The server-drawn charts as a reader sees them: a few ratings are dots, not a lone line; the axis reaches
 * the ratings an alert quoted; rank ticks read #1, #5, #10, #20; the x axis gives dates; and the category
 * chart marks the events that may explain a move.
 */
import { describe, expect, it } from 'vitest';
import { ratingChart } from '../../src/web/charts.js';
import type { SafeHtml } from '../../src/web/html.js';
import { rankChart, rankTicks, timeTicks } from '../../src/web/rank-chart.js';

const DAY = 86_400_000;
const T = Date.UTC(2026, 10, 20, 12);

const svgOf = (chart: SafeHtml | string) => (typeof chart === 'string' ? chart : chart.text);
const labels = (svg: string) =>
  [...svg.matchAll(/<text class="axis"[^>]*>([^<]+)<\/text>/g)].map((m) => m[1]);

describe('the rating chart', () => {
  it('draws sparse data as points, and one rating as a chart, not a blank', () => {
    const one = svgOf(ratingChart([{ at: new Date(T), value: 4.3 }], [], 'Rating'));
    expect(one).toContain('<svg');
    expect(one.match(/<circle class="point"/g)).toHaveLength(1);
    const three = svgOf(
      ratingChart(
        [0, 1, 2].map((d) => ({ at: new Date(T + d * DAY), value: 4.3 - d * 0.05 })),
        [],
        'Rating',
      ),
    );
    expect(three.match(/<circle class="point"/g)).toHaveLength(3);
  });

  it('covers the ratings an alert quoted, even beyond the points drawn', () => {
    const svg = svgOf(
      ratingChart(
        [
          { at: new Date(T), value: 4.2 },
          { at: new Date(T + DAY), value: 4.1 },
        ],
        [{ at: new Date(T + DAY), kind: 'rating-drop', label: 'Rating drop', quoted: [4.6, 4.1] }],
        'Rating',
      ),
    );
    const values = labels(svg)
      .map(Number)
      .filter((n) => !Number.isNaN(n));
    expect(Math.max(...values)).toBeGreaterThanOrEqual(4.6);
  });
});

describe('the rank chart', () => {
  it('has rank ticks that read, and dates on its x axis', () => {
    expect(rankTicks(44)).toEqual([1, 5, 10, 20, 30, 44]);
    expect(rankTicks(15)).toEqual([1, 5, 10, 15]);
    expect(timeTicks(T, T + 10 * DAY).map((t) => t.label)).toContain('23 Nov');
    expect(timeTicks(T, T + 4 * 3_600_000).every((t) => / \d\d:\d\d$/.test(t.label))).toBe(true);
  });

  it('marks the events that explain a move, each with what it was', () => {
    const svg = svgOf(
      rankChart({
        since: new Date(T),
        until: new Date(T + 3 * DAY),
        depth: 20,
        series: [
          {
            name: 'Shop',
            own: true,
            points: [0, 1, 2].map((d) => ({ at: new Date(T + d * DAY), rank: 5 + d * 4 })),
          },
        ],
        gaps: [],
        title: 'Ranks',
        wide: true,
        events: [
          { at: new Date(T + DAY), kind: 'listing', label: 'Rival: price cut' },
          { at: new Date(T + 2 * DAY), kind: 'entrant', label: 'New entrant: Nova at #3' },
        ],
      }),
    );
    expect(svg).toContain('<svg class="chart ranks wide"');
    expect(svg.match(/<g class="event /g)).toHaveLength(2);
    expect(svg).toContain('<title>Rival: price cut (2026-11-21 12:00 UTC)</title>');
    expect(labels(svg)).toEqual(expect.arrayContaining(['#1', '#5', '#10', '#20']));
    expect(labels(svg).some((l) => l?.startsWith('21 Nov'))).toBe(true);
  });
});

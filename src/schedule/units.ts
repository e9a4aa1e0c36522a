/** Durations and counts as the schedule keeps and shows them. */
import { DAY_MS } from './rate.js';

/** Whole seconds: BullMQ schedules in ms, and sub-second differences are noise. */
export function roundInterval(ms: number): number {
  return Math.max(1_000, Math.round(ms / 1_000) * 1_000);
}

export function fmtDuration(ms: number): string {
  if (ms >= DAY_MS && ms % DAY_MS === 0) return `${ms / DAY_MS}d`;
  if (ms >= 3_600_000) return `${Math.round((ms / 3_600_000) * 10) / 10}h`;
  if (ms >= 60_000) return `${Math.round((ms / 60_000) * 10) / 10}m`;
  return `${Math.round(ms / 1_000)}s`;
}

/** A count of requests, rounded, with thousands separated. */
export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * What the digest says about triage (digest/triage.ts), in plain text shared by the three renderings, and
 * where in the inbox the open reviews are. Every part is built from numbers and fixed words; the one
 * outside string, the inbox's address, goes through safeUrl and is escaped by each renderer.
 */
import type { DigestPeriod } from '../../digest/period.js';
import type { DigestData, DigestTriage } from '../../digest/types.js';
import { PRIORITIES, type Priority } from '../../scoring/priority.js';
import { formatCount, plural } from '../../util/plural.js';
import { type DataSource, safeUrl } from '../wording.js';
import { periodNoun } from './digest-wording.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A wait as a person says it: "under a minute", "45 min", "3 h 20 min", "2 d 4 h". */
export function formatWait(ms: number): string {
  if (ms < MINUTE) return 'under a minute';
  const minutes = Math.round(ms / MINUTE);
  if (minutes < 60) return `${minutes} min`;
  if (ms < DAY) {
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return m === 0 ? `${h} h` : `${h} h ${m} min`;
  }
  const hours = Math.round(ms / HOUR);
  const d = Math.floor(hours / 24);
  const h = hours % 24;
  return h === 0 ? `${d} d` : `${d} d ${h} h`;
}

/** The priorities with open reviews, most urgent first: [["high", 3], …]. */
export function openByPriority(triage: DigestTriage): Array<[Priority, number]> {
  return PRIORITIES.filter((p) => triage.open[p] > 0).map((p) => [p, triage.open[p]]);
}

/** "5 alerted reviews still open (new or acknowledged):", before the counts per priority. */
export function openLead(triage: DigestTriage): string {
  return `${plural(triage.openTotal, 'alerted review')} still open (new or acknowledged):`;
}

/** "5 alerted reviews still open (new or acknowledged): 2 critical, 3 high." or that none is. */
export function openSentence(triage: DigestTriage): string {
  if (triage.openTotal === 0) return 'No alerted review is still open.';
  const parts = openByPriority(triage).map(([p, n]) => `${formatCount(n)} ${p}`);
  return `${openLead(triage)} ${parts.join(', ')}.`;
}

/** "Acknowledged this week: 5 reviews, a median of 3 h 20 min after their alert." */
export function acknowledgedSentence(triage: DigestTriage, period: DigestPeriod): string {
  const noun = periodNoun(period);
  if (triage.acknowledged === 0 || triage.medianAckMs === null) {
    return `No alerted review was acknowledged ${noun}.`;
  }
  const after = formatWait(triage.medianAckMs);
  return triage.acknowledged === 1
    ? `1 alerted review acknowledged ${noun}, ${after} after its alert.`
    : `${plural(triage.acknowledged, 'alerted review')} acknowledged ${noun}: a median of ${after} from alert to acknowledgement.`;
}

export interface TriageLinks {
  /** Every open review of the digest's apps. */
  open: string;
  byPriority: Partial<Record<Priority, string>>;
}

/**
 * The inbox's view of the open reviews the digest counts (its own apps, any stars, any date, new or
 * acknowledged, with an alert of any priority, which leaves out the reviews that never alerted), and of
 * each priority; none without `inboxUrl`. The query is built of fixed tokens.
 */
export function triageLinks(data: DigestData, source: DataSource): TriageLinks | undefined {
  const base = source.inboxUrl ? safeUrl(source.inboxUrl) : undefined;
  if (base === undefined) return undefined;
  const role = data.apps.some((a) => a.role === 'own') ? 'role=own&' : '';
  const view = (priorities: readonly Priority[]) =>
    new URL(
      `/?${role}stars=1,2,3,4,5&priority=${priorities.join(',')}&status=new,acknowledged&period=all`,
      base,
    ).href;
  return {
    open: view(PRIORITIES),
    byPriority: Object.fromEntries(openByPriority(data.triage).map(([p]) => [p, view([p])])),
  };
}

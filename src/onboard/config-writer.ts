/**
 * The config `reviewwatch init` writes: what discovery found, as commented YAML that `check-config`
 * accepts once the variables it references are set. Written as text rather than through a YAML library
 * because the comments are half its value; every value in it is a handle (checked against the handle
 * pattern) or fixed text, and names from the marketplace appear only in comments, made single-line.
 */
import { parseDocument } from 'yaml';
import { isValidHandle } from '../catalog/index.js';
import { type Config, parseConfig } from '../config/index.js';
import type { Competitor, Discovery } from './discover.js';

export interface ConfigDraft {
  discovery: Pick<Discovery, 'developer' | 'own' | 'categories'>;
  /** The suggested competitors the person kept. */
  competitors: readonly Competitor[];
  /** How it was made, for the header: `reviewwatch init --developer my-dev`. */
  command: string;
  writtenAt: Date;
}

/** The channel every alert goes to until a real one is added: the terminal of `reviewwatch start`. */
export const STARTER_CHANNEL = 'terminal';

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Untrusted text as one comment line: no control characters or line breaks, at most `max` characters. */
export function commentText(text: string, max = 60): string {
  const flat = text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function checked(handle: string): string {
  if (!isValidHandle(handle)) throw new Error(`refusing to write "${handle}": not a handle`);
  return handle;
}

function rankText(rank: number | null): string {
  return rank === null ? 'rank beyond the pages read' : `#${rank}`;
}

function appLines(draft: ConfigDraft): string[] {
  const { developer, own, categories } = draft.discovery;
  const categoryName = new Map(categories.map((c) => [c.handle, commentText(c.name, 40)]));
  const whose = developer === null ? 'given with --app' : `of ${commentText(developer.name, 40)}`;
  const lines = ['apps:', `  # Yours (${whose}): their alerts go to the channels in \`notify\`.`];
  for (const app of own) {
    const where = app.categories.map((c) => categoryName.get(c) ?? c).join(', ') || 'no category';
    lines.push(`  - handle: ${checked(app.handle)} # ${commentText(app.name)} (${where})`);
    lines.push(`    notify: [${STARTER_CHANNEL}]`);
  }
  if (draft.competitors.length === 0) return lines;
  lines.push(
    '  # Competitors: the apps ranked nearest to yours in your categories. Polled far less often than yours',
    '  # (weight 0.0005 under an adaptive or budget schedule) and never alerted on; the digest compares them.',
  );
  for (const c of draft.competitors) {
    const near = c.near === null ? '' : `, beside ${c.near.handle} ${rankText(c.near.rank)}`;
    lines.push(
      `  - handle: ${checked(c.handle)} # ${commentText(c.name)}: #${c.rank} in ${categoryName.get(c.category) ?? c.category}${near}`,
    );
    lines.push('    role: competitor');
  }
  return lines;
}

function categoryLines(draft: ConfigDraft): string[] {
  const { categories } = draft.discovery;
  if (categories.length === 0) {
    return ['# No listing named a category the marketplace lists: no ranks to track.', 'categories: []'];
  }
  const lines = [
    "# The market watch: each category's first `pages` pages (24 entries, ads included, one request each) every",
    "# market.every (6h); your apps' rank moves, reshuffles and new entrants alert your apps' channels.",
    'categories:',
  ];
  for (const c of categories) {
    const ranks = c.ranks.map((r) => `${r.handle} ${rankText(r.rank)}`).join(', ');
    lines.push(`  - handle: ${checked(c.handle)} # ${commentText(c.name, 40)}: ${ranks}`);
    lines.push(`    pages: ${c.pages}`);
  }
  return lines;
}

/** `"${NAME}"`: a value the config loader takes from the environment. */
const ref = (name: string) => `"\${${name}}"`;

const HEADER_END = [
  `# Secrets stay in the environment: ${ref('NAME')} is replaced with the variable's value. Every key, and the`,
  '# channel types: docs/configuration.md. Check it with `reviewwatch check-config`.',
  '',
  'catalog:',
  `  baseUrl: ${ref('CATALOG_API_BASE_URL')}`,
  `  apiKey: ${ref('CATALOG_API_KEY')}`,
  '  maxRequestsPerSecond: 5',
  '  # Requests (credits) a day for `poll.schedule: budget`; the other schedules warn when they exceed it.',
  '  # dailyRequestBudget: 20000',
  '',
  'poll:',
  '  # fixed: every app every `every`; adaptive: each by its own pace; budget: within dailyRequestBudget.',
  '  every: 15m',
  '  schedule: fixed',
  '',
];

const CHANNELS = [
  '',
  'channels:',
  '  # Alerts print in the terminal of `reviewwatch start` until you add a real channel, e.g. (then name it',
  "  # in the apps' `notify`, and set the variable):",
  `  ${STARTER_CHANNEL}: { type: console }`,
  `  # support: { type: slack, webhookUrl: ${ref('SLACK_WEBHOOK_URL')}, minPriority: medium }`,
  '  # team-mail: { type: email, from: reviewwatch@example.com, to: [you@example.com], minPriority: high }',
  '',
  '# The weekly digest, by email or Slack (email needs SMTP_URL):',
  '# digest:',
  '#   schedule: "0 9 * * 1"',
  '#   timezone: UTC',
  '#   channels: [team-mail]',
  '',
];

export function renderConfig(draft: ConfigDraft): string {
  const day = draft.writtenAt.toISOString().slice(0, 10);
  return [
    `# reviewwatch configuration, written by \`${commentText(draft.command, 200)}\` on ${day}`,
    '# from what the Catalog API lists. Edit freely: nothing rewrites it.',
    ...HEADER_END,
    ...appLines(draft),
    '',
    ...categoryLines(draft),
    ...CHANNELS,
  ].join('\n');
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The config as `check-config` will read it, every variable it references filled with a stand-in: what
 * it will cost, and proof it is valid before anything is written.
 */
export function parseRendered(text: string, source: string): Config {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0]?.message ?? 'YAML error'}`);
  const env: Record<string, string> = {};
  for (const [, name] of text.matchAll(REFERENCE)) env[name as string] = 'https://stand-in.invalid';
  return parseConfig(doc.toJS(), env, source);
}

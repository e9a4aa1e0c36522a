import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command } from 'commander';
import { CatalogClient } from '../../catalog/index.js';
import { DEFAULT_CONFIG_PATH } from '../../config/index.js';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { patientReader } from '../../onboard/backoff.js';
import { parseRendered, renderConfig } from '../../onboard/config-writer.js';
import {
  type CatalogReader,
  type Competitor,
  type DiscoverRequest,
  type Discovery,
  discover,
  UnknownHandleError,
} from '../../onboard/discover.js';
import { retryAfterCapNote } from '../../util/http.js';
import { plural } from '../../util/plural.js';
import { configCost } from '../actions/status-report.js';
import { globalOptions } from '../context.js';
import { competitorLines, discoveryLines } from '../discovery-report.js';
import { terminalSafe } from '../format.js';
import { Prompt } from '../prompt.js';
import { costLines } from './check-config.js';

interface InitOptions {
  developer?: string;
  app?: string[];
  output?: string;
  yes?: boolean;
  force?: boolean;
}

export function initCommand(): Command {
  return new Command('init')
    .description(
      'discover your apps, their categories and competitors through the Catalog API, and write a config',
    )
    .option('--developer <handle>', 'your developer handle: the last part of your developer page URL')
    .option(
      '--app <handle...>',
      'an app of yours by its handle (repeatable), beside or instead of --developer',
    )
    .option(
      '-o, --output <path>',
      `where to write the config (default: --config, $REVIEWWATCH_CONFIG or ${DEFAULT_CONFIG_PATH})`,
    )
    .option('-y, --yes', 'write what was found without asking (for scripts)')
    .option('--force', 'overwrite the file if it exists')
    .action(async (options: InitOptions, command: Command) => {
      const path = outputPath(options, command);
      checkBeforeReading(options, path);
      const interactive = options.yes !== true;
      const { found, request } = await readCatalog(
        { developer: options.developer, apps: options.app ?? [] },
        interactive,
      );
      await review(found, { path, interactive, force: options.force === true, command: invocation(request) });
    });
}

/** Discovery through the API of the environment, with progress and the backoff on stderr. */
async function readCatalog(
  request: DiscoverRequest,
  interactive: boolean,
): Promise<{ found: Discovery; request: DiscoverRequest }> {
  const { baseUrl, apiKey } = catalogFromEnvironment();
  let requests = 0;
  const client = new CatalogClient({ baseUrl, apiKey, timeoutMs: 30_000, onResponse: () => requests++ });
  try {
    const reader = patientReader(client, {
      onWait: (n) =>
        progress(
          `${n.reason === 'rate limit' ? 'Rate limited (HTTP 429)' : 'The API is unavailable'} on ${n.endpoint}: trying again in ${(n.waitMs / 1000).toFixed(1)}s (try ${n.attempt})${retryAfterCapNote(n.waitMs)}…`,
        ),
    });
    const result = await discoverFixingTypos(reader, request, interactive);
    progress(`Discovery done: ${plural(requests, 'API request')} to ${new URL(baseUrl).host}.`);
    return result;
  } finally {
    await client.close();
  }
}

/** Where other commands will look for the config, unless told otherwise: that is where it belongs. */
function outputPath(options: InitOptions, command: Command): string {
  return (
    options.output ?? globalOptions(command).config ?? (process.env.REVIEWWATCH_CONFIG || DEFAULT_CONFIG_PATH)
  );
}

/** Everything that would stop the command after the credits were spent, checked before any request. */
function checkBeforeReading(options: InitOptions, path: string): void {
  if (options.developer === undefined && (options.app ?? []).length === 0) {
    throw new ReviewwatchError(
      'init needs --developer HANDLE (your developer page: it lists your apps) or --app HANDLE.',
      { exitCode: ExitCode.Usage },
    );
  }
  if (existsSync(path) && options.force !== true) {
    throw new ReviewwatchError(
      `${path} already exists: pass --force to overwrite it, or --output another path.`,
      { exitCode: ExitCode.Usage },
    );
  }
  if (options.yes !== true && !(process.stdin.isTTY && process.stdout.isTTY)) {
    throw new ReviewwatchError(
      'init shows what it found and asks before it writes, and this is not a terminal: pass --yes to write what it finds without asking.',
      { exitCode: ExitCode.Usage },
    );
  }
}

/** The API to read, from the environment as `start` reads it; never made-up data. */
function catalogFromEnvironment(): { baseUrl: string; apiKey: string } {
  const baseUrl = process.env.CATALOG_API_BASE_URL ?? '';
  const apiKey = process.env.CATALOG_API_KEY ?? '';
  const missing = [baseUrl ? '' : 'CATALOG_API_BASE_URL', apiKey ? '' : 'CATALOG_API_KEY'].filter(Boolean);
  if (missing.length > 0) {
    throw new ReviewwatchError(
      `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set: init reads your apps from the Catalog API. To try it on simulated data, run \`reviewwatch simulate\` and set CATALOG_API_BASE_URL=http://127.0.0.1:4010 CATALOG_API_KEY=any.`,
      { exitCode: ExitCode.Usage },
    );
  }
  try {
    new URL(baseUrl);
  } catch {
    throw new ReviewwatchError('CATALOG_API_BASE_URL is not a URL (e.g. https://api.example.com).', {
      exitCode: ExitCode.Usage,
    });
  }
  return { baseUrl, apiKey };
}

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

function invocation(request: DiscoverRequest): string {
  const parts = ['reviewwatch init'];
  if (request.developer !== undefined) parts.push(`--developer ${request.developer}`);
  for (const app of request.apps) parts.push(`--app ${app}`);
  return parts.join(' ');
}

/** At a terminal, a typo is answered with a question (use the closest handle?) rather than an exit. */
async function discoverFixingTypos(
  reader: CatalogReader,
  first: DiscoverRequest,
  interactive: boolean,
): Promise<{ found: Discovery; request: DiscoverRequest }> {
  let request = first;
  for (let tries = 1; ; tries++) {
    try {
      return { found: await discover(reader, request, progress), request };
    } catch (err) {
      if (!interactive || tries >= 3 || !(err instanceof UnknownHandleError)) throw err;
      const fixes = await askForFixes(err);
      if (fixes === undefined) throw err;
      request =
        err.kind === 'developer'
          ? { ...request, developer: fixes.get(request.developer ?? '') ?? request.developer }
          : { ...request, apps: request.apps.map((app) => fixes.get(app) ?? app) };
    }
  }
}

/** Typed handle → the listed one chosen instead; undefined when any is left without one. */
async function askForFixes(err: UnknownHandleError): Promise<Map<string, string> | undefined> {
  if (err.unknown.some((u) => u.closest.length === 0)) return undefined;
  process.stderr.write(`${err.message}\n`);
  const prompt = new Prompt();
  try {
    const fixes = new Map<string, string>();
    for (const { handle, closest } of err.unknown) {
      const chosen = await prompt.choose(`"${terminalSafe(handle)}"`, closest);
      if (chosen === undefined) return undefined;
      fixes.set(handle, chosen);
    }
    return fixes;
  } finally {
    prompt.close();
  }
}

interface ReviewOptions {
  path: string;
  interactive: boolean;
  force: boolean;
  command: string;
}

/** Shows what was found and what it costs, lets a person drop competitors and say yes, then writes. */
async function review(discovery: Discovery, options: ReviewOptions): Promise<void> {
  const out = (lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);
  out(discoveryLines(discovery));
  out(competitorLines(discovery.competitors));
  const prompt = options.interactive ? new Prompt() : undefined;
  try {
    let competitors: readonly Competitor[] = discovery.competitors;
    if (prompt !== undefined && competitors.length > 0) competitors = await dropSome(prompt, competitors);
    const text = renderConfig({ discovery, competitors, command: options.command, writtenAt: new Date() });
    const config = parseRendered(text, options.path);
    out([
      `Watching ${plural(config.apps.length, 'app')} and ${plural(config.categories.length, 'category', 'categories')}:`,
      // check-config's market line is about snapshots not taken yet; here every category is one of yours.
      ...costLines(configCost(config, undefined, Date.now()), config.catalog.dailyRequestBudget).filter(
        (line) => !line.startsWith('  market:'),
      ),
    ]);
    if (prompt !== undefined && !(await prompt.confirm(`Write ${options.path}?`))) {
      out(['Nothing written.']);
      return;
    }
    write(options.path, text, options.force);
  } finally {
    prompt?.close();
  }
  out([
    `Wrote ${options.path}. Next: set CATALOG_API_BASE_URL and CATALOG_API_KEY where reviewwatch runs, add a channel (it alerts in the terminal until then), and run:`,
    `  reviewwatch check-config${options.path === DEFAULT_CONFIG_PATH ? '' : ` --config ${options.path}`}`,
  ]);
}

async function dropSome(prompt: Prompt, competitors: readonly Competitor[]): Promise<Competitor[]> {
  const dropped = await prompt.pickNumbers(
    'Competitors to leave out, by number (e.g. 2 5, 1-3, all; Enter keeps them all): ',
    competitors.length,
  );
  return competitors.filter((_, i) => !dropped.has(i + 1));
}

/** Created exclusively unless forced: a file that appeared while we asked is not overwritten either. */
function write(path: string, text: string, force: boolean): void {
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(path, text, { flag: force ? 'w' : 'wx', mode: 0o644 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ReviewwatchError(`${path} appeared meanwhile: pass --force to overwrite it.`, {
        exitCode: ExitCode.Usage,
      });
    }
    throw err;
  }
}

/**
 * Base class for every error reviewwatch raises on purpose. The message is meant for the person running
 * the tool: what went wrong and, where there is one, what to do about it. `exitCode` is what the CLI
 * exits with when the error reaches it.
 */
export class ReviewwatchError extends Error {
  readonly exitCode: number;

  constructor(message: string, options: { cause?: unknown; exitCode?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? ExitCode.Failure;
  }
}

/** Exit codes of the CLI; documented in docs/cli.md. */
export const ExitCode = {
  Ok: 0,
  /** The command ran but something it did failed (a poll, a delivery). */
  Failure: 1,
  /** The config or the command line is wrong. */
  Usage: 2,
  /** A service reviewwatch needs (Redis, the database, the Catalog API key) is unusable. */
  Unavailable: 3,
} as const;

export class ConfigError extends ReviewwatchError {
  readonly problems: string[];

  constructor(source: string, problems: string[]) {
    super(`${source} is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`, {
      exitCode: ExitCode.Usage,
    });
    this.problems = problems;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `['apps', 0, 'handle']` → `apps[0].handle`: how config keys and body fields are named in messages. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out || '(root)';
}

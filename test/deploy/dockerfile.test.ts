// The Dockerfile and .dockerignore follow the deployment conventions (docs/deployment.md). No Docker
// engine runs here, so the Dockerfile is parsed and checked as text, and its HEALTHCHECK command is run
// with the host's node against a loopback server.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Instruction {
  keyword: string;
  /** The arguments as written, continuation lines joined with a space. */
  args: string;
  line: number;
}

interface Stage {
  /** The base image with build arguments substituted. */
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

interface Dockerfile {
  /** ARGs declared before the first FROM, with their defaults. */
  globalArgs: Map<string, string>;
  stages: Stage[];
}

/** Enough of the Dockerfile grammar for these checks: comments, `\` continuations, stages, global ARGs. */
function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let pending: { parts: string[]; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    // Comment lines (parser directives included) are dropped, even inside a continuation.
    if (line.startsWith('#')) return;
    if (line === '' && pending === undefined) return;
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1).trim() : line;
    pending ??= { parts: [], line: index + 1 };
    if (part !== '') pending.parts.push(part);
    if (continued) return;
    const joined = pending.parts.join(' ');
    const match = /^(\S+)\s*(.*)$/s.exec(joined);
    if (match?.[1] !== undefined)
      instructions.push({ keyword: match[1].toUpperCase(), args: match[2] ?? '', line: pending.line });
    pending = undefined;
  });

  const globalArgs = new Map<string, string>();
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'));
      const image = (words[0] ?? '').replace(
        /\$\{?(\w+)\}?/g,
        (_, name: string) => globalArgs.get(name) ?? `\${${name}}`,
      );
      const name = words[1]?.toUpperCase() === 'AS' ? words[2] : undefined;
      stages.push({ image, name, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword === 'ARG') {
        const [key, value = ''] = instruction.args.split('=', 2);
        if (key) globalArgs.set(key.trim(), value.trim());
      }
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

/** `--name=value` options at the start of an instruction's arguments, and the rest. */
function splitFlags(args: string): { flags: Map<string, string>; rest: string } {
  const flags = new Map<string, string>();
  let rest = args.trim();
  for (
    let match = /^--([\w-]+)(?:=(\S*))?\s*/.exec(rest);
    match;
    match = /^--([\w-]+)(?:=(\S*))?\s*/.exec(rest)
  ) {
    flags.set(match[1] ?? '', match[2] ?? '');
    rest = rest.slice(match[0].length);
  }
  return { flags, rest };
}

/** Exec form (`["node", "x"]`) as its array; shell form as one string. */
function commandOf(args: string): string[] | string {
  const trimmed = args.trim();
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) return parsed;
    throw new Error(`not an exec form: ${trimmed}`);
  }
  return trimmed;
}

interface Copy {
  from: string | undefined;
  sources: string[];
  destination: string;
}

function copiesOf(stage: Stage): Copy[] {
  return stage.instructions
    .filter((instruction) => instruction.keyword === 'COPY' || instruction.keyword === 'ADD')
    .map((instruction) => {
      const { flags, rest } = splitFlags(instruction.args);
      const command = commandOf(rest);
      const paths = typeof command === 'string' ? command.split(/\s+/) : command;
      return { from: flags.get('from'), sources: paths.slice(0, -1), destination: paths.at(-1) ?? '' };
    });
}

/** `ENV A=1 B="x y"` (and the legacy `ENV A 1`) in one stage, later values winning. */
function envOf(stage: Stage): Map<string, string> {
  const env = new Map<string, string>();
  for (const { keyword, args } of stage.instructions) {
    if (keyword !== 'ENV') continue;
    if (!args.includes('=')) {
      const [key, ...value] = args.split(/\s+/);
      if (key) env.set(key, value.join(' '));
      continue;
    }
    for (const match of args.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)) {
      const value = match[2] ?? '';
      env.set(match[1] ?? '', /^["']/.test(value) ? value.slice(1, -1) : value);
    }
  }
  return env;
}

const runs = (stage: Stage) =>
  stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => splitFlags(i.args).rest);
const last = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.keyword === keyword).at(-1);
/** Resolves a path against the stage's WORKDIR at the end of the stage (good enough: set once, early). */
const workdirOf = (stage: Stage) => last(stage, 'WORKDIR')?.args.trim() ?? '/';

/**
 * Where `path` lands in `stage`: a build-context path, or with `from` a path relative to that stage's
 * WORKDIR (COPY --from takes absolute paths in the other stage). Undefined when it is not copied.
 */
function placement(stage: Stage, path: string, from?: string): { copy: Copy; at: string } | undefined {
  const workdir = workdirOf(stage);
  for (const copy of copiesOf(stage)) {
    if (copy.from !== from) continue;
    const origin = from === undefined ? undefined : dockerfile.stages.find((s) => s.name === from);
    const wanted = origin === undefined ? posix.normalize(path) : posix.join(workdirOf(origin), path);
    const source = copy.sources.find((candidate) =>
      origin === undefined ? posix.normalize(candidate) === wanted : posix.resolve('/', candidate) === wanted,
    );
    if (source === undefined) continue;
    const destination = posix.resolve(workdir, copy.destination);
    const intoDirectory = copy.sources.length > 1 || copy.destination.endsWith('/');
    return { copy, at: intoDirectory ? posix.join(destination, posix.basename(path)) : destination };
  }
  return undefined;
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const finalStage = dockerfile.stages.at(-1) as Stage;
const builder = dockerfile.stages.find((stage) => stage.name === 'builder') as Stage;
const pkg = JSON.parse(read('package.json')) as {
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('Dockerfile', () => {
  it('is multi-stage: a named builder, then the runtime stage', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    expect(builder, 'a stage `FROM … AS builder`').toBeDefined();
    expect(dockerfile.stages.indexOf(builder)).toBeLessThan(dockerfile.stages.length - 1);
  });

  it('builds on a current Node.js LTS, the small Debian image, through ARG NODE_VERSION', () => {
    const version = dockerfile.globalArgs.get('NODE_VERSION');
    expect(version, 'ARG NODE_VERSION=<major> before the first FROM').toMatch(/^\d+$/);
    const major = Number(version);
    // Even majors are the LTS lines; 20 reached its end of life in April 2026.
    expect(major % 2, 'an LTS (even) major').toBe(0);
    expect(major).toBeGreaterThanOrEqual(22);
    for (const stage of dockerfile.stages) expect(stage.image).toBe(`node:${major}-bookworm-slim`);
  });

  it('builder: build tools, npm ci with optional dependencies, build, then prune dev dependencies', () => {
    const commands = runs(builder);
    const aptInstall = commands.find((command) => /apt-get install/.test(command)) ?? '';
    for (const tool of ['python3', 'make', 'g++']) expect(aptInstall.split(/\s+/)).toContain(tool);

    const position = (pattern: RegExp) => {
      const index = commands.findIndex((command) => pattern.test(command));
      expect(index, `a RUN matching ${pattern}`).toBeGreaterThanOrEqual(0);
      // Within one RUN, order by position in the command line.
      return index * 10_000 + (commands[index] ?? '').search(pattern);
    };
    const ci = position(/\bnpm ci\b/);
    const build = position(/\bnpm run build\b/);
    const prune = position(/\bnpm prune --omit=dev\b/);
    expect(ci).toBeLessThan(build);
    expect(build).toBeLessThan(prune);

    const ciCommand = commands.find((command) => /\bnpm ci\b/.test(command)) ?? '';
    // The build needs the dev dependencies (typescript); install scripts compile better-sqlite3.
    expect(ciCommand).not.toMatch(/--omit[= ]dev|--production|--ignore-scripts/);
  });

  it('never leaves out optional dependencies (esbuild and msgpackr binaries come through them)', () => {
    const text = read('Dockerfile')
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    expect(text).not.toMatch(/--omit[= ]optional|--no-optional/);
  });

  it('builder copies every input of `npm run build` where the build expects it', () => {
    const buildConfig = JSON.parse(read('tsconfig.build.json')) as { extends?: string; include?: string[] };
    const inputs = [
      'package.json',
      'package-lock.json',
      'tsconfig.build.json',
      ...(buildConfig.include ?? []),
    ];
    if (buildConfig.extends) inputs.push(posix.normalize(buildConfig.extends));
    const workdir = workdirOf(builder);
    for (const input of inputs) {
      const placed = placement(builder, input);
      expect(placed, `the builder copies ${input}`).toBeDefined();
      expect(placed?.at).toBe(posix.join(workdir, input));
    }
  });

  it('runtime stage copies what `reviewwatch start` needs from the pruned builder, and no source', () => {
    const copies = copiesOf(finalStage);
    const workdir = workdirOf(finalStage);
    const destinationOf = (path: string, from?: string) => {
      const placed = placement(finalStage, path, from);
      expect(placed, `the runtime stage copies ${path}${from ? ` from ${from}` : ''}`).toBeDefined();
      return placed?.at;
    };

    // node_modules and dist only from the builder, which pruned the dev dependencies away.
    const modules = destinationOf('node_modules', 'builder');
    const dist = destinationOf('dist', 'builder');
    expect(placement(finalStage, 'node_modules'), 'node_modules from the build context').toBeUndefined();
    // package.json says "type": "module": without it node cannot load dist/ as ES modules.
    const manifest = destinationOf('package.json', 'builder') ?? destinationOf('package.json');
    // src/store/db.ts finds the migrations at ../../drizzle from dist/store/: beside dist, all in the
    // WORKDIR, where the ENTRYPOINT finds dist/cli/main.js.
    const migrations = destinationOf('drizzle');
    expect(dist).toBe(posix.join(workdir, 'dist'));
    expect(migrations).toBe(posix.join(workdir, 'drizzle'));
    expect(modules).toBe(posix.join(workdir, 'node_modules'));
    expect(manifest).toBe(posix.join(workdir, 'package.json'));
    expect(destinationOf('config/reviewwatch.example.yaml')).toBe(
      posix.join(workdir, 'config/reviewwatch.example.yaml'),
    );

    const sources = copies.flatMap((copy) => copy.sources);
    for (const unwanted of ['.', 'src', 'test', 'tsconfig.json', '.env'])
      expect(sources, `the runtime stage does not copy ${unwanted}`).not.toContain(unwanted);
    expect(runs(finalStage).join('\n'), 'no install in the runtime stage').not.toMatch(
      /\bnpm (ci|install|i)\b/,
    );
  });

  it('runs as a non-root user in the final stage', () => {
    const user = last(finalStage, 'USER')?.args.trim();
    expect(user, 'a USER in the final stage').toBeDefined();
    const name = (user ?? '').split(':')[0];
    expect(name).not.toMatch(/^(root|0)$/);
    // Nothing after the USER switches back to root.
    const index = finalStage.instructions.findIndex((i) => i.keyword === 'USER' && i.args.trim() === user);
    expect(finalStage.instructions.slice(index + 1).some((i) => i.keyword === 'USER')).toBe(false);
  });

  it('keeps the SQLite database in a volume, and runs in production mode with JSON logs', () => {
    const env = envOf(finalStage);
    expect(env.get('NODE_ENV')).toBe('production');
    expect(env.get('LOG_FORMAT')).toBe('json');
    // The ops server must listen beyond the container's loopback for a published port to reach it.
    expect(env.get('REVIEWWATCH_HTTP_HOST')).toBe('0.0.0.0');
    const database = env.get('DATABASE_PATH') ?? '';
    expect(posix.isAbsolute(database)).toBe(true);

    const volumes = finalStage.instructions
      .filter((i) => i.keyword === 'VOLUME')
      .flatMap((i) => {
        const command = commandOf(i.args);
        return typeof command === 'string' ? command.split(/\s+/) : command;
      });
    expect(volumes).toContain(posix.dirname(database));
    // The volume's directory is created (and handed to the user) before VOLUME freezes it.
    const volumeAt = finalStage.instructions.findIndex((i) => i.keyword === 'VOLUME');
    const before = finalStage.instructions.slice(0, volumeAt).filter((i) => i.keyword === 'RUN');
    const user = (last(finalStage, 'USER')?.args ?? '').trim();
    expect(before.map((i) => i.args).join('\n')).toContain(
      `chown ${user}:${user} ${posix.dirname(database)}`,
    );

    // The config path the compose file mounts.
    expect(env.get('REVIEWWATCH_CONFIG')).toBe('/app/config/reviewwatch.yaml');
  });

  it('starts `reviewwatch start` through node in exec form, on the port it exposes', () => {
    expect(commandOf(last(finalStage, 'ENTRYPOINT')?.args ?? '')).toEqual(['node', pkg.bin.reviewwatch]);
    expect(commandOf(last(finalStage, 'CMD')?.args ?? '')).toEqual(['start']);
    expect(existsSync(join(ROOT, 'src/cli/main.ts'))).toBe(true);
    expect(pkg.bin.reviewwatch).toBe('dist/cli/main.js');
    const exposed = (last(finalStage, 'EXPOSE')?.args ?? '').split(/\s+/);
    expect(exposed).toContain('9464');
    expect(envOf(finalStage).get('REVIEWWATCH_HTTP_PORT') ?? '9464').toBe('9464');
    expect(last(finalStage, 'STOPSIGNAL')?.args.trim() ?? 'SIGTERM').toBe('SIGTERM');
  });

  it('has a HEALTHCHECK in exec form that needs no curl', () => {
    const healthcheck = healthcheckCommand();
    expect(healthcheck[0]).toBe('node');
    expect(healthcheck.join(' ')).toContain('/healthz');
    const { flags } = splitFlags(last(finalStage, 'HEALTHCHECK')?.args ?? '');
    for (const flag of ['interval', 'timeout', 'start-period', 'retries']) expect(flags.has(flag)).toBe(true);
  });
});

function healthcheckCommand(): string[] {
  const instruction = last(finalStage, 'HEALTHCHECK');
  expect(instruction, 'a HEALTHCHECK in the final stage').toBeDefined();
  const { rest } = splitFlags(instruction?.args ?? '');
  expect(rest).toMatch(/^CMD\s/);
  const command = commandOf(rest.replace(/^CMD\s+/, ''));
  expect(Array.isArray(command), 'exec form: no shell needed').toBe(true);
  return command as string[];
}

describe('the HEALTHCHECK command, run by the host node', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  async function serve(status: number): Promise<number> {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/healthz' ? status : 404;
      res.end();
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  function check(port: number): Promise<number | null> {
    const [command, ...args] = healthcheckCommand();
    const child = spawn(command === 'node' ? process.execPath : (command ?? ''), args, {
      env: { ...process.env, REVIEWWATCH_HTTP_PORT: String(port) },
      stdio: 'ignore',
    });
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => resolve(code));
    });
  }

  it('exits 0 when /healthz answers 200', async () => {
    expect(await check(await serve(200))).toBe(0);
  });

  it('exits 1 when /healthz answers 503', async () => {
    expect(await check(await serve(503))).toBe(1);
  });

  it('exits 1 when nothing listens', async () => {
    const port = await serve(200);
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    expect(await check(port)).toBe(1);
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  /** Docker's matching, simplified: `**` spans directories, `*` does not, a match excludes what is below. */
  function ignored(path: string): boolean {
    let result = false;
    for (const raw of patterns) {
      const negated = raw.startsWith('!');
      const pattern = posix.normalize(negated ? raw.slice(1) : raw).replace(/^\/+/, '');
      const source = pattern
        .split(/(\*\*\/?|\*|\?)/)
        .map((part) => {
          if (part === '**/' || part === '**') return '(?:.*/)?';
          if (part === '*') return '[^/]*';
          if (part === '?') return '[^/]';
          return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      if (new RegExp(`^${source}(?:/.*)?$`).test(path)) result = !negated;
    }
    return result;
  }

  it('leaves out local state, build output and secrets', () => {
    for (const path of [
      'node_modules',
      'dist',
      'data',
      'data/reviewwatch.db',
      '.git',
      'coverage',
      'bench/results',
      'reviewwatch.db',
      'some/dir/reviewwatch.db-wal',
      '.env',
    ])
      expect(ignored(path), path).toBe(true);
  });

  it('keeps everything the Dockerfile copies from the build context', () => {
    const sources = dockerfile.stages.flatMap((stage) =>
      copiesOf(stage)
        .filter((copy) => copy.from === undefined)
        .flatMap((copy) => copy.sources),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(join(ROOT, source)), `${source} exists`).toBe(true);
      expect(ignored(source), `${source} is not ignored`).toBe(false);
      // Nor is a directory above it.
      for (let dir = dirname(source); dir !== '.'; dir = dirname(dir)) expect(ignored(dir), dir).toBe(false);
    }
  });
});

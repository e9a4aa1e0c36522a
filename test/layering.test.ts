import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/, lowest first: a module may import from its own layer and the ones below, never
 * from one above. Every top-level folder and file of src/ has a layer here, so a new one has to say
 * where it sits.
 */
const LAYER: Readonly<Record<string, number>> = {
  'errors.ts': 0,
  'log.ts': 0,
  // The tables of alert kinds and channel types: the store's schema and the config name them.
  'kinds.ts': 0,
  util: 0,
  // The API and the scoring rules know nothing of each other (FORBIDDEN below).
  catalog: 1,
  scoring: 1,
  // The topic engine: pure text rules and statistics; scoring weighs its topics, it knows nothing of scoring.
  topics: 1,
  // A fake of the API, for the demo and the tests: it must not depend on what it stands in for.
  simulator: 1,
  // Pure market logic (organic ranks, rank alerts, listing diffs): reads the API's shapes, nothing else.
  market: 1,
  config: 2,
  store: 3,
  watch: 4,
  alerts: 4,
  notify: 4,
  render: 4,
  digest: 4,
  // Poll intervals from arrival rates: reads the store and the config, knows nothing of the queue.
  schedule: 4,
  // What `reviewwatch init` discovers through the API and the config it writes: no store, no queue.
  onboard: 4,
  // Peers: queue's workers take ops' Metrics, ops' server and settings take web's AdminCredentials and
  // settings name queue's defaults.
  queue: 5,
  ops: 5,
  'settings.ts': 5,
  // The inbox's pages and API, mounted by ops' server: a peer it may import, importing nothing of ops.
  web: 5,
  // The composition roots (`worker.ts` for long-running work, `resources.ts` for the short commands)
  // and the named steps `worker.ts` runs.
  root: 6,
  'demo.ts': 7,
  cli: 8,
};

/** Same-layer pairs that must not import each other. */
const FORBIDDEN: ReadonlyArray<readonly [string, string]> = [
  ['catalog', 'scoring'],
  ['scoring', 'catalog'],
  ['catalog', 'market'],
  ['market', 'scoring'],
  ['topics', 'scoring'],
  ['topics', 'catalog'],
  ['topics', 'market'],
];

/** A module that may import a lower one only through these of its files. */
const ONLY_THROUGH: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  // The config checks handles as the API spells them, nothing more of the client.
  config: { catalog: ['src/catalog/handle.ts'], market: ['src/market/fields.ts'] },
};

/** Known violations (`file -> imported file`), each to be deleted by whoever fixes it. None now. */
const ALLOWED = new Set<string>([]);

/** The lower layers the issue asks to keep clean: everything the store may rest on, and the store. */
const LOWER = [
  'errors.ts',
  'log.ts',
  'kinds.ts',
  'util',
  'catalog',
  'scoring',
  'topics',
  'market',
  'config',
  'store',
];

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');

/** Relative module specifiers of a source text: static, type-only, re-exports, `import()` and import types. */
function relativeImports(source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith('.'));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** `src/…` path of what a specifier names, with `.js` read as the `.ts` it compiles from. */
function resolveImport(file: string, specifier: string): string {
  const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
  return relative(ROOT, target).split(sep).join('/');
}

/** The top-level module of src a `src/…` path belongs to; undefined outside src. */
function moduleOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return undefined;
  return parts[1];
}

interface Edge {
  file: string;
  target: string;
}

function edgesOf(module: string): Edge[] {
  const path = join(SRC, module);
  const files = module.endsWith('.ts') ? [path] : sourceFiles(path);
  return files.flatMap((abs) =>
    relativeImports(readFileSync(abs, 'utf8')).map((specifier) => ({
      file: relative(ROOT, abs).split(sep).join('/'),
      target: resolveImport(abs, specifier),
    })),
  );
}

/** Why this import breaks the layering, or undefined when it does not. */
function violation(edge: Edge): string | undefined {
  const from = moduleOf(edge.file);
  const to = moduleOf(edge.target);
  if (from === undefined) return undefined;
  if (to === undefined) return `imports from outside src/`;
  if (from === to) return undefined;
  const fromLayer = LAYER[from];
  const toLayer = LAYER[to];
  if (fromLayer === undefined) return `${from} has no layer in LAYER`;
  if (toLayer === undefined) return `${to} has no layer in LAYER`;
  if (toLayer > fromLayer) {
    return `${from} (layer ${fromLayer}) imports ${to} (layer ${toLayer}), a layer above it`;
  }
  if (FORBIDDEN.some(([a, b]) => a === from && b === to)) return `${from} must not import ${to}`;
  const only = ONLY_THROUGH[from]?.[to];
  if (only !== undefined && !only.includes(edge.target)) {
    return `${from} may import ${to} only through ${only.join(', ')}`;
  }
  return undefined;
}

function offences(modules: readonly string[]): string[] {
  return modules
    .filter((m) => existsInSrc(m))
    .flatMap(edgesOf)
    .filter((edge) => !ALLOWED.has(`${edge.file} -> ${edge.target}`))
    .flatMap((edge) => {
      const why = violation(edge);
      return why === undefined ? [] : [`${edge.file} -> ${edge.target}: ${why}`];
    });
}

function existsInSrc(module: string): boolean {
  return readdirSync(SRC).includes(module);
}

describe('layering', () => {
  it('gives every top-level module of src/ a layer', () => {
    const unplaced = readdirSync(SRC).filter((name) => LAYER[name] === undefined);
    expect(unplaced, 'add these to LAYER in test/layering.test.ts').toEqual([]);
  });

  it('keeps the store and what it rests on from importing anything above them', () => {
    expect(offences(LOWER), 'these imports point up the layers').toEqual([]);
  });

  it('keeps the layers above the store pointing down', () => {
    const upper = Object.keys(LAYER).filter((m) => !LOWER.includes(m));
    expect(offences(upper), 'these imports point up the layers').toEqual([]);
  });

  it("keeps the root's steps from importing the roots that run them", () => {
    const roots = ['src/root/worker.ts', 'src/root/resources.ts'];
    const back = edgesOf('root')
      .filter((edge) => !roots.includes(edge.file) && roots.includes(edge.target))
      .map((edge) => `${edge.file} -> ${edge.target}`);
    expect(back, 'a step imports the root that runs it').toEqual([]);
  });

  it("leaves a worker's parts (partsOf) to the tests and benchmarks", () => {
    const users = sourceFiles(SRC)
      .filter((file) => /\bpartsOf\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file).split(sep).join('/'));
    expect(users, 'src/ uses the Worker handle, not its parts').toEqual(['src/root/worker.ts']);
  });

  it('reads every kind of import and catches one that points up', () => {
    const source = [
      "import type { A } from '../watch/diff.js';",
      "export * from './b.js';",
      "export { c } from '../alerts/c.js';",
      "const d = await import('../queue/d.js');",
      "type E = import('../cli/e.js').E;",
      "import {\n  f,\n  type G,\n} from '../scoring/f.js';",
      "// import { h } from '../root/worker.js';",
      'const i = "from \'../ops/i.js\'";',
    ].join('\n');
    const specifiers = relativeImports(source);
    expect(specifiers).toEqual([
      '../watch/diff.js',
      './b.js',
      '../alerts/c.js',
      '../queue/d.js',
      '../cli/e.js',
      '../scoring/f.js',
    ]);
    const file = join(SRC, 'store', 'x.ts');
    const found = specifiers
      .map((s) => ({ file: 'src/store/x.ts', target: resolveImport(file, s) }))
      .map(violation);
    expect(found).toEqual([
      'store (layer 3) imports watch (layer 4), a layer above it',
      undefined,
      'store (layer 3) imports alerts (layer 4), a layer above it',
      'store (layer 3) imports queue (layer 5), a layer above it',
      'store (layer 3) imports cli (layer 8), a layer above it',
      undefined,
    ]);
    expect(violation({ file: 'src/scoring/x.ts', target: 'src/catalog/index.ts' })).toBe(
      'scoring must not import catalog',
    );
    expect(violation({ file: 'src/config/x.ts', target: 'src/catalog/client.ts' })).toBe(
      'config may import catalog only through src/catalog/handle.ts',
    );
    expect(violation({ file: 'src/config/x.ts', target: 'src/catalog/handle.ts' })).toBeUndefined();
  });
});

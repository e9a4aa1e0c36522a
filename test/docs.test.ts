import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** A document a comment or a page names: `docs/architecture.md`, `stack-notes.md`, `bench/README.md`. */
const DOCUMENT = /[\w./-]+\.md\b/g;
const URL = /\b(?:https?|file):\/\/\S+/g;

function filesUnder(dir: string, extension: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(extension) && !name.split(/[\\/]/).includes('node_modules'))
    .map((name) => join(dir, name));
}

/** The text of every comment of a TypeScript file, found by the parser (not in strings or regexes). */
function commentsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const seen = new Set<number>();
  const comments: string[] = [];
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      comments.push(text.slice(range.pos, range.end));
    }
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  // Comments after the last statement belong to the end-of-file token.
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return comments;
}

/** Documents named in `text` that exist neither at the repository root, nor in docs/, nor beside `from`. */
function missingDocuments(text: string, from: string): string[] {
  const names = text.replace(URL, '').match(DOCUMENT) ?? [];
  return names.filter(
    (name) => ![name, join('docs', name), join(dirname(from), name)].some((path) => existsSync(path)),
  );
}

/** `file: name` for every document the comments of these files cite that is not in the repository. */
function uncitable(files: string[]): string[] {
  return files.flatMap((file) =>
    commentsOf(file).flatMap((comment) => missingDocuments(comment, file).map((name) => `${file}: ${name}`)),
  );
}

/** Cells of a markdown table row: split on `|` unless escaped as `\|`. */
function cellCount(row: string): number {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/).length;
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(markdown: string): Set<string> {
  const headings = markdown.match(/^#{1,6} .+$/gm) ?? [];
  return new Set(
    headings.map((heading) =>
      heading
        .replace(/^#+ /, '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

/** Markdown is not formatted here: pages keep their prose near 110 characters, and nothing past this. */
const MAX_LINE = 160;

/** Files other than code and pages that cite the documentation in their comments. */
const OTHER_FILES = [
  'Dockerfile',
  'docker-compose.yml',
  '.ci/run',
  ...['config', 'deploy'].flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => !name.endsWith('.md'))
      .map((name) => join(dir, name)),
  ),
].filter((file) => existsSync(file));

/** A section cited by its heading: `docs/configuration.md, "Choosing a poll schedule"`, `the README's "Try it"`. */
const SECTION = /(README|[\w./-]+\.md)(?:'s)?,?[\s*#/]+"([^"]+)"/g;

/** `document "Heading"` for every section cited in `text` whose document has no such heading. */
function missingSections(text: string): string[] {
  return [...text.matchAll(SECTION)].flatMap(([, document, heading]) => {
    const name = document === 'README' ? 'README.md' : (document as string);
    const path = [name, join('docs', name)].find((p) => existsSync(p));
    if (path === undefined) return []; // missingDocuments reports it
    const headings = (readFileSync(path, 'utf8').match(/^#{1,6} .+$/gm) ?? []).map((h) =>
      h.replace(/^#+ /, ''),
    );
    return headings.includes(heading as string) ? [] : [`${name} "${heading}"`];
  });
}

/** Every Markdown page of the repository: the top level, docs/, bench/ and deploy/. */
const PAGES = ['.', 'docs', 'bench', 'deploy'].flatMap((dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .map((name) => (dir === '.' ? name : join(dir, name))),
);

/** The project's own code, where a name a page gives in backticks must still occur (not this file's examples). */
const CODE_FILES = ['src', 'test', 'bench', 'scripts']
  .flatMap((dir) => filesUnder(dir, '.ts'))
  .filter((file) => file !== join('test', 'docs.test.ts'));
const SRC_FILES = filesUnder('src', '.ts');

/** What running reviewwatch creates, and the config a user copies from the example: not in the repository. */
const MADE_BY_USE = ['config/reviewwatch.yaml', 'data/', 'dist/', 'bench/results/'];

/**
 * Names of other software a page gives in backticks that look like identifiers of ours: a JavaScript
 * error class, an SQLite result code, better-sqlite3's and systemd's settings, an environment variable.
 */
const OTHER_SOFTWARE = new Set([
  'TypeError',
  'SQLITE_BUSY',
  'SQLITE_FULL',
  'safeIntegers',
  'NODE_ENV',
  'TimeoutStopSec',
  'NoNewPrivileges',
  'MemoryDenyWriteExecute',
]);

const TOP_FOLDERS = '(?:src|test|bench|scripts|deploy|docs|drizzle|config|\\.ci)';
/** A path from the repository's top: `src/watch/poll.ts`, `deploy/env.example`, `test/deploy/`. */
const ROOTED_PATH = new RegExp(`(?<![\\w./-])(${TOP_FOLDERS}/[\\w./-]*[\\w/])`, 'g');
/** A source file or folder in backticks, from src/ or beside the page: `queue/poll-schedule.ts`, `util/`. */
const RELATIVE_PATH = /^[\w-]+(?:\/[\w.-]+)*(?:\.(?:ts|mjs)|\/)$/;
/** A TypeScript file named in prose: `worker.ts`, review.ts. */
const SOURCE_FILE = /(?<![\w./-])([\w-]+(?:\/[\w-]+)*\.(?:ts|mjs))\b/g;
/** An identifier of code rather than a word: camelCase, PascalCase with a second capital, CONSTANT_CASE. */
const IDENTIFIER = /^(?:[a-z][a-z0-9]*[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)$/;

function codeSpans(markdown: string): string[] {
  return [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
}

/** Source files and folders a page names that are not in the repository. */
function missingPaths(markdown: string, page: string): string[] {
  const text = markdown.replace(URL, '');
  const names = new Set<string>([
    ...[...text.matchAll(ROOTED_PATH)].map((m) => m[1] as string),
    ...codeSpans(text).filter((span) => RELATIVE_PATH.test(span)),
    ...[...text.matchAll(SOURCE_FILE)].map((m) => m[1] as string),
  ]);
  const exists = (name: string) => {
    const path = name.replace(/[./]+$/, '');
    if (MADE_BY_USE.some((made) => `${path}/`.startsWith(made))) return true;
    if ([path, join('src', path), join(dirname(page), path)].some((p) => existsSync(p))) return true;
    // A file named alone (`review.ts`) or from its folder (`alert/alert-slack.ts`), anywhere in src/.
    return SRC_FILES.some((file) => file.endsWith(`/${path}`));
  };
  return [...names].filter((name) => !exists(name));
}

/** Whole-word occurrence of a name in a text. */
function mentions(text: string, name: string): boolean {
  return new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);
}

/**
 * Names of code a page gives that the code no longer has: a `function()` must occur in src/; any other
 * identifier in backticks in the project's code; "`name` in `src/file.ts`" in that very file.
 */
function staleNames(markdown: string, code: { src: string; all: string }): string[] {
  const stale: string[] = [];
  for (const span of codeSpans(markdown)) {
    const call = span.match(/^(?:[\w$]+\.)*([A-Za-z_$][\w$]*)\(\)$/);
    if (call) {
      if (!mentions(code.src, call[1] as string)) stale.push(span);
      continue;
    }
    const last = span.split('.').at(-1) ?? '';
    if (!/^[\w$.]+$/.test(span) || !IDENTIFIER.test(last) || OTHER_SOFTWARE.has(last)) continue;
    if (!mentions(code.all, last)) stale.push(span);
  }
  const inFile = /`([A-Za-z_$][\w$]*)(?:\(\))?`(?: in| \(| \(in) `((?:src\/)?[\w./-]+\.ts)`/g;
  for (const [, name, path] of markdown.matchAll(inFile)) {
    const file = [path as string, join('src', path as string)].find((p) => existsSync(p));
    if (file && !mentions(readFileSync(file, 'utf8'), name as string)) stale.push(`${name} in ${file}`);
  }
  return stale;
}

/** `name -> layer` of test/layering.test.ts's `LAYER`, read with the TypeScript parser. */
function layersOfTest(file: string): Map<string, number> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const layers = new Map<string, number>();
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && node.name.getText(source) === 'LAYER') {
      let value = node.initializer;
      while (value && (ts.isAsExpression(value) || ts.isSatisfiesExpression(value))) value = value.expression;
      if (!value || !ts.isObjectLiteralExpression(value)) throw new Error(`${file}: LAYER is not an object`);
      for (const property of value.properties) {
        if (!ts.isPropertyAssignment(property) || !ts.isNumericLiteral(property.initializer)) {
          throw new Error(`${file}: LAYER has an entry that is not "name: number"`);
        }
        const name = property.name;
        const key = ts.isStringLiteral(name) || ts.isIdentifier(name) ? name.text : name.getText(source);
        layers.set(key, Number(property.initializer.text));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return layers;
}

/** `name -> layer` of a page's table with the header `| layer | folder | owns |`. */
function layersOfPage(markdown: string): Map<string, number> {
  const layers = new Map<string, number>();
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => /^\|\s*layer\s*\|\s*folder\s*\|/.test(line));
  if (header < 0) return layers;
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [layer, folders] = line
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    for (const [, name] of (folders ?? '').matchAll(/`([^`]+)`/g)) {
      layers.set((name as string).replace(/\/$/, ''), Number(layer));
    }
  }
  return layers;
}

/** The text of a page's `## heading` section, up to the next heading of that level. */
function sectionOf(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** Names other libraries give that a "where to make a change" step may call: zod's. */
const LIBRARY_NAMES = new Set(['superRefine']);

/** Every name a file declares: functions, variables, classes, types, enums, members of types and classes. */
function declaredNames(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isVariableDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node) ||
        ts.isPropertySignature(node) ||
        ts.isPropertyDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isMethodSignature(node)) &&
      node.name !== undefined &&
      ts.isIdentifier(node.name)
    ) {
      names.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** A path from the top of the repository a step names: `src/kinds.ts`, `test/notify/`, `bench/topics-quality.ts`. */
const STEP_PATH = /(?<![\w./-])((?:src|test|bench|docs)\/[\w./-]*[\w/])/g;
/** A name a step gives: an identifier of code, a PascalCase type, or a call. */
const STEP_NAME = /^(?:[\w$]+\.)*([A-Za-z_$][\w$]*)(\(\))?$/;

/**
 * What the steps of "Where to make a change" name and the repository lacks: a path (in backticks) not on
 * disk, and a name in backticks that no file under src/ declares, or, written "`name` (`file`)" or
 * "`name` in `file`", that this file does not declare.
 */
function missingInSteps(section: string, declared: (file?: string) => Set<string>): string[] {
  const missing: string[] = [];
  for (const span of codeSpans(section)) {
    for (const [, path] of span.matchAll(STEP_PATH)) {
      if (!existsSync(path as string)) missing.push(path as string);
    }
  }
  for (const match of section.matchAll(
    /`([^`\n]+)`(?:,? (?:in |\(in |\()`((?:src|test|bench)\/[\w./-]+\.ts)`)?/g,
  )) {
    const [, span, file] = match;
    const name = (span as string).match(STEP_NAME);
    if (!name) continue;
    const [, last, call] = name;
    const isName =
      call !== undefined || IDENTIFIER.test(last as string) || /^[A-Z][a-z0-9]+$/.test(last as string);
    if (!isName || LIBRARY_NAMES.has(last as string)) continue;
    if (file !== undefined) {
      if (!existsSync(file)) missing.push(file);
      else if (!declared(file).has(last as string)) missing.push(`${last} in ${file}`);
    } else if (!declared().has(last as string)) {
      missing.push(span as string);
    }
  }
  return missing;
}

describe('the project documents itself', () => {
  it('finds comments and the documents they cite (the check can fail)', () => {
    const comments = commentsOf('src/store/write-batch.ts').join('\n');
    expect(comments).toContain('Group commit');
    expect(missingDocuments('see docs/nowhere.md and architecture.md', 'src/x.ts')).toEqual([
      'docs/nowhere.md',
    ]);
    expect(missingDocuments('as https://example.com/GUIDE.md says', 'src/x.ts')).toEqual([]);
  });

  it('no comment under src/ cites a document that is not in the repository', () => {
    expect(uncitable(filesUnder('src', '.ts'))).toEqual([]);
  });

  it('nor do the comments of the tests, benchmarks and scripts', () => {
    expect(uncitable(['test', 'bench', 'scripts'].flatMap((dir) => filesUnder(dir, '.ts')))).toEqual([]);
  });

  it('the README and the docs name and link only documents that exist', () => {
    const broken = PAGES.flatMap((page) => {
      const text = readFileSync(page, 'utf8');
      const links = [...text.matchAll(/\]\(([^)\s#]*)(?:#([^)\s]*))?\)/g)]
        .map((m) => ({ target: m[1] || page, anchor: m[2], link: m[0] }))
        .filter(({ target }) => !/^[a-z]+:/.test(target))
        .filter(({ target, anchor }) => {
          const path = target === page ? page : join(dirname(page), target);
          if (!existsSync(path)) return true;
          return anchor !== undefined && !anchorsOf(readFileSync(path, 'utf8')).has(anchor);
        })
        .map(({ link }) => link);
      return [...missingDocuments(text, page), ...links].map((name) => `${page}: ${name}`);
    });
    expect(broken).toEqual([]);
  });

  it('every row of the tables has as many cells as its header', () => {
    const wrong = PAGES.flatMap((page) => {
      const found: string[] = [];
      let columns: number | undefined;
      readFileSync(page, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!line.trimStart().startsWith('|')) {
            columns = undefined;
            return;
          }
          columns ??= cellCount(line);
          if (cellCount(line) !== columns) found.push(`${page}:${i + 1}: ${line.slice(0, 60)}…`);
        });
      return found;
    });
    expect(wrong).toEqual([]);
  });

  it(`no line of a page is longer than ${MAX_LINE} characters`, () => {
    const long = PAGES.flatMap((page) =>
      readFileSync(page, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          [...line].length > MAX_LINE ? [`${page}:${i + 1}: ${line.slice(0, 60)}…`] : [],
        ),
    );
    expect(long).toEqual([]);
  });

  it('the deployment files and configs cite only documents and sections that exist', () => {
    const cited = OTHER_FILES.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...missingDocuments(text, file), ...missingSections(text)].map((name) => `${file}: ${name}`);
    });
    expect(cited).toEqual([]);
  });

  it('comments cite only sections that exist', () => {
    const files = ['src', 'test', 'bench', 'scripts'].flatMap((dir) => filesUnder(dir, '.ts'));
    const cited = files.flatMap((file) =>
      missingSections(commentsOf(file).join('\n')).map((name) => `${file}: ${name}`),
    );
    expect(cited).toEqual([]);
    expect(missingSections('see the README\'s "Nowhere", docs/cli.md, "user" and README, "Try it"')).toEqual([
      'README.md "Nowhere"',
    ]);
  });

  it('finds the paths and names a page gives (the checks can fail)', () => {
    const page = [
      'See `src/watch/poll.ts`, `queue/poll-schedule.ts`, `render/alert/`, `worker.ts` and review.ts,',
      'src/nowhere.ts, `queue/gone.ts`, gone.ts and `config/reviewwatch.yaml` (made by the user);',
      'https://example.com/src/x.ts is a link.',
    ].join('\n');
    expect(missingPaths(page, 'docs/x.md')).toEqual(['src/nowhere.ts', 'queue/gone.ts', 'gone.ts']);
    const code = { src: 'export function startWorker() {}', all: 'startWorker fullTextDrift maxPages' };
    const names = [
      '`startWorker()`, `openRuntime()`, `fullTextDrift`, `createServices`, `TypeError`, `poll.maxPages`,',
      '`RedisRequestGate` (`src/queue/rate-gate.ts`), `startWorker` in `src/queue/rate-gate.ts`.',
    ].join('\n');
    expect(staleNames(names, { ...code, all: `${code.all} RedisRequestGate` })).toEqual([
      'openRuntime()',
      'createServices',
      'startWorker in src/queue/rate-gate.ts',
    ]);
  });

  it('the pages name only source files and folders that exist', () => {
    const missing = PAGES.flatMap((page) =>
      missingPaths(readFileSync(page, 'utf8'), page).map((path) => `${page}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('the steps of "Where to make a change" name only paths and names that exist', () => {
    const perFile = new Map(SRC_FILES.map((file) => [file, declaredNames(file)]));
    const everywhere = new Set([...perFile.values()].flatMap((names) => [...names]));
    const declared = (file?: string) =>
      file === undefined ? everywhere : (perFile.get(file) ?? declaredNames(file));
    const section = sectionOf(readFileSync('docs/architecture.md', 'utf8'), 'Where to make a change');
    expect(section).toContain('**A review column.**');
    expect(missingInSteps(section, declared)).toEqual([]);
  });

  it('finds what the steps name and lack (the check can fail)', () => {
    const declared = (file?: string) =>
      new Set(file === 'src/kinds.ts' ? ['ALERT_KINDS'] : ['ALERT_KINDS', 'reviewRowOf', 'Transport']);
    const steps = [
      '- `ALERT_KINDS` in `src/kinds.ts`, `reviewRowOf` (`src/kinds.ts`), `CHANNEL_TYPOS`, `Transport`,',
      '  `deliverAll()`, `npx tsx bench/nowhere.ts --misses`, `test/helpers/reviews.ts`, `superRefine`,',
      '  `Nonesuch` and `version`.',
    ].join('\n');
    expect(missingInSteps(steps, declared)).toEqual([
      'bench/nowhere.ts',
      'reviewRowOf in src/kinds.ts',
      'CHANNEL_TYPOS',
      'deliverAll()',
      'Nonesuch',
    ]);
  });

  it('the pages name only functions and identifiers the code still has', () => {
    const code = {
      src: SRC_FILES.map((file) => readFileSync(file, 'utf8')).join('\n'),
      all: CODE_FILES.map((file) => readFileSync(file, 'utf8')).join('\n'),
    };
    const stale = PAGES.flatMap((page) =>
      staleNames(readFileSync(page, 'utf8'), code).map((name) => `${page}: ${name}`),
    );
    expect(stale).toEqual([]);
  });

  it("architecture.md's layer table is test/layering.test.ts's", () => {
    const tested = layersOfTest('test/layering.test.ts');
    const documented = layersOfPage(readFileSync('docs/architecture.md', 'utf8'));
    expect(tested.size).toBeGreaterThan(10);
    const sorted = (layers: Map<string, number>) =>
      [...layers].map(([name, layer]) => `${layer} ${name}`).sort();
    expect(sorted(documented)).toEqual(sorted(tested));
  });

  it('reads both layer tables (the check can fail)', () => {
    const page = ['| layer | folder | owns |', '| ---: | --- | --- |', '| 0 | `util/`, `log.ts` | x |'];
    expect([...layersOfPage(page.join('\n'))]).toEqual([
      ['util', 0],
      ['log.ts', 0],
    ]);
    expect(layersOfTest('test/layering.test.ts').get('store')).toBe(3);
  });
});

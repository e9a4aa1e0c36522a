import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** A document a comment or a page names: `docs/architecture.md`, `stack-notes.md`, `bench/README.md`. */
const DOCUMENT = /[\w./-]+\.md\b/g;
const URL = /\bhttps?:\/\/\S+/g;

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

const PAGES = ['README.md', 'bench/README.md', ...filesUnder('docs', '.md')];

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

  it("every row of the README's tables has as many cells as its header", () => {
    const lines = readFileSync('README.md', 'utf8').split('\n');
    const wrong: string[] = [];
    let columns: number | undefined;
    lines.forEach((line, i) => {
      if (!line.trimStart().startsWith('|')) {
        columns = undefined;
        return;
      }
      columns ??= cellCount(line);
      if (cellCount(line) !== columns) wrong.push(`README.md:${i + 1}: ${line.slice(0, 60)}…`);
    });
    expect(wrong).toEqual([]);
  });

  it('the design documents name source files that exist', () => {
    const text = ['docs/architecture.md', 'docs/catalog-api.md', 'docs/stack-notes.md']
      .map((page) => readFileSync(page, 'utf8'))
      .join('\n');
    const paths = [...text.matchAll(/`(src\/[\w./-]+\.ts)`/g)].map((m) => m[1] as string);
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((path) => !existsSync(path)).map((path) => relative('.', path))).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No function in src/ is longer than this many lines unless the comment right above it says why, in a line
 * starting with LONG_BECAUSE: a long function is where the next engineer gets lost, so it should be one
 * only on purpose.
 */
const MAX_LINES = 100;
const LONG_BECAUSE = 'Long because';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Long functions whose split or reason lands with other work in progress, each with why it waits. An
 * entry that no longer names a long function fails the test: remove it then.
 */
const PENDING: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

interface LongFunction {
  /** `src/…:line name`. */
  where: string;
  lines: number;
  explained: boolean;
}

/** What a function is called, for the message: its own name, its variable's, its property's or its key's. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

/**
 * The comments right above a function: its own, and those of what it is the value of (a variable
 * statement, a property, an argument), up to the statement or member that holds it.
 */
function commentsAbove(node: ts.Node, source: ts.SourceFile): string[] {
  const text = source.getFullText();
  const comments: string[] = [];
  for (let at: ts.Node | undefined = node; at && !ts.isSourceFile(at); at = at.parent) {
    for (const range of ts.getLeadingCommentRanges(text, at.getFullStart()) ?? []) {
      comments.push(text.slice(range.pos, range.end));
    }
    if (ts.isStatement(at) || ts.isClassElement(at) || ts.isObjectLiteralElementLike(at)) break;
  }
  return comments;
}

function explainsLength(comment: string): boolean {
  return comment
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\*\*?|\*|\/\/)?\s*/, ''))
    .some((line) => line.startsWith(LONG_BECAUSE));
}

/** Every function, method, accessor, constructor and arrow function of a file longer than `max` lines. */
function longFunctions(file: string, text: string, max = MAX_LINES): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) {
        found.push({
          where: `${relative(ROOT, file).split(sep).join('/')}:${first + 1} ${nameOf(fn, source)}`,
          lines,
          explained: commentsAbove(fn, source).some(explainsLength),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it(`no function in src/ is longer than ${MAX_LINES} lines unless the comment above it says why`, () => {
    const long = sourceFiles(join(ROOT, 'src')).flatMap((file) =>
      longFunctions(file, readFileSync(file, 'utf8')),
    );
    const pendingKey = (fn: LongFunction) => fn.where.replace(/:\d+ /, ' ');
    const unexplained = long
      .filter((fn) => !fn.explained && !(pendingKey(fn) in PENDING))
      .map((fn) => `${fn.where} (${fn.lines} lines)`);
    expect(unexplained).toEqual([]);
    const stillLong = new Set(long.map(pendingKey));
    expect(Object.keys(PENDING).filter((key) => !stillLong.has(key))).toEqual([]);
  });

  it('counts every kind of function, and takes a reason only from the comment right above it', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `function declared() {\n${body(99)}\n}`,
      `/** Long because it is a table. */\nconst arrow = () => {\n${body(99)}\n};`,
      `class C {\n  method() {\n${body(99)}\n  }\n}`,
      `call(async (job) => {\n${body(99)}\n});`,
      `function fits() {\n${body(98)}\n}`,
      `// Long because\n// nothing, as this comment is not right above it.\nconst x = 1;\nconst late = function () {\n${body(99)}\n};`,
    ].join('\n');
    const found = longFunctions(join(ROOT, 'src/example.ts'), text);
    expect(
      found.map((fn) => [fn.where.replace(/^src\/example\.ts:\d+ /, ''), fn.lines, fn.explained]),
    ).toEqual([
      ['declared', 101, false],
      ['arrow', 101, true],
      ['method', 101, false],
      ['(argument of call)', 101, false],
      ['late', 101, false],
    ]);
  });
});

// The image and a host install run `npm prune --omit=dev`: every package the compiled code loads must be
// a production dependency. Checked on the source, since dist/ is what tsc makes of src/.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Bare specifiers the emitted JavaScript loads. `import type` and `export type` are erased; with
 * verbatimModuleSyntax an `import { type X }` is kept, so it counts.
 */
function runtimeSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const match of code.matchAll(
    /(?:^|[\s;])(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g,
  ))
    if (match[2] === undefined && match[4]) found.push(match[4]);
  for (const match of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g))
    if (match[1]) found.push(match[1]);
  for (const match of code.matchAll(/\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g))
    if (match[1]) found.push(match[1]);
  return found.filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('/'));
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('runtime dependencies', () => {
  it('reads specifiers the way the compiled code loads them', () => {
    const source = [
      "import type { Redis } from 'ioredis';",
      "import { type Logger, pino } from 'pino';",
      "export type { Thing } from 'typed-only';",
      "import pretty from 'pino-pretty';",
      "export { x } from 'reexported';",
      "import 'side-effect';",
      "const lazy = await import('lazy-one');",
      "import { a } from './local.js';",
      "import {\n  b,\n  c,\n} from 'drizzle-orm/better-sqlite3';",
    ].join('\n');
    expect(runtimeSpecifiers(source).sort()).toEqual(
      ['drizzle-orm/better-sqlite3', 'lazy-one', 'pino', 'pino-pretty', 'reexported', 'side-effect'].sort(),
    );
  });

  it('every package src/ loads is a production dependency (it survives npm prune --omit=dev)', () => {
    const production = new Set([
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
    ]);
    const builtins = new Set(builtinModules);
    const missing: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      for (const specifier of runtimeSpecifiers(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('node:') || builtins.has(specifier) || builtins.has(packageOf(specifier)))
          continue;
        if (!production.has(packageOf(specifier))) missing.push(`${relative(ROOT, file)}: ${specifier}`);
      }
    }
    expect(missing, 'move these to "dependencies" in package.json').toEqual([]);
  });
});

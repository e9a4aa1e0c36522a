import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configSchema } from '../../src/config/schema.js';

type Schema = z.core.$ZodType;

/** Every configurable key path of the schema, down to leaves; arrays as `[]`, records as `.NAME`. */
function keyPaths(schema: Schema, prefix: string): string[] {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
      return keyPaths(def.innerType as Schema, prefix);
    case 'pipe':
      return keyPaths(def.in as Schema, prefix);
    case 'object': {
      const shape = def.shape as Record<string, Schema>;
      return Object.entries(shape).flatMap(([key, value]) =>
        keyPaths(value, prefix ? `${prefix}.${key}` : key),
      );
    }
    case 'array':
    case 'record':
      // One documented entry stands for the elements (`apps[]`, `channels.NAME`).
      return [def.type === 'array' ? `${prefix}[]` : `${prefix}.NAME`];
    default:
      return [prefix];
  }
}

/**
 * The keys docs/configuration.md documents: each entry of its "## Keys" section starts with the keys in
 * bold, "- **`a.b.c`, `.d`** (default …)", which documents a.b.c and a.b.d.
 */
function documentedKeys(page: string): string[] {
  const start = page.indexOf('\n## Keys');
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^- \*\*(.+?)\*\*/gm)].flatMap((m) => {
    const spans = [...(m[1] as string).matchAll(/`([^`]+)`/g)].map((s) => s[1] as string);
    const first = spans[0];
    if (!first) return [];
    const parent = first.slice(0, first.lastIndexOf('.'));
    return spans.map((span) => (span.startsWith('.') ? `${parent}${span}` : span));
  });
}

describe('the configuration reference, docs/configuration.md', () => {
  const schemaKeys = keyPaths(configSchema as unknown as Schema, '');
  const documented = documentedKeys(readFileSync('docs/configuration.md', 'utf8'));
  const covers = (doc: string, key: string) =>
    key === doc || key.startsWith(`${doc}.`) || key.startsWith(`${doc}[`);

  it('documents every key of the config schema', () => {
    expect(schemaKeys.filter((key) => !documented.some((doc) => covers(doc, key)))).toEqual([]);
  });

  it('documents no key the schema does not have', () => {
    expect(documented.filter((doc) => !schemaKeys.some((key) => covers(doc, key) || doc === key))).toEqual(
      [],
    );
  });
});

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

/** The keys the README's configuration table documents: "`a.b.c`, `.d`" documents a.b.c and a.b.d. */
function documentedKeys(readme: string): string[] {
  const table = readme.slice(readme.indexOf('| key '), readme.indexOf('\n\n', readme.indexOf('| key ')));
  return table
    .split('\n')
    .slice(2)
    .flatMap((row) => {
      const cell = row.split('|')[1] ?? '';
      const spans = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
      const first = spans[0];
      if (!first) return [];
      const parent = first.slice(0, first.lastIndexOf('.'));
      return spans.map((span) => (span.startsWith('.') ? `${parent}${span}` : span));
    });
}

describe('the configuration reference in the README', () => {
  const schemaKeys = keyPaths(configSchema as unknown as Schema, '');
  const documented = documentedKeys(readFileSync('README.md', 'utf8'));
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

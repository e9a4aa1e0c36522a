import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { ConfigError, formatPath } from '../errors.js';
import { type Config, configSchema } from './schema.js';

export const DEFAULT_CONFIG_PATH = 'config/reviewwatch.yaml';

type Env = Record<string, string | undefined>;

/** Where each value that referenced an unset environment variable sits, by dotted path. */
type UnsetRefs = Map<string, string>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Replaces `${NAME}` in string values after parsing, so a secret is never re-read as YAML. A value that
 * references an unset variable is dropped, and remembered, so validation can say which variable is missing
 * instead of reporting an empty string.
 */
function interpolate(value: unknown, env: Env, path: PropertyKey[], unset: UnsetRefs): unknown {
  if (typeof value === 'string') {
    let missing: string | undefined;
    const out = value.replace(REFERENCE, (_, name: string) => {
      const found = env[name];
      if (found === undefined || found === '') missing ??= name;
      return found ?? '';
    });
    if (missing !== undefined) {
      unset.set(formatPath(path), missing);
      return undefined;
    }
    return out;
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolate(item, env, [...path, i], unset));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const next = interpolate(item, env, [...path, key], unset);
      if (next !== undefined) out[key] = next;
    }
    return out;
  }
  return value;
}

function describeIssue(issue: z.core.$ZodIssue, unset: UnsetRefs): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown key`);
  }
  const where = formatPath(issue.path);
  const variable = unset.get(where);
  if (variable !== undefined) return [`${where}: environment variable ${variable} is not set`];
  const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
  return [`${where}: ${missing ? 'required' : issue.message}`];
}

/** Validates a parsed config object; `source` names it in errors. */
export function parseConfig(raw: unknown, env: Env = {}, source = 'config'): Config {
  const unset: UnsetRefs = new Map();
  const interpolated = interpolate(raw ?? {}, env, [], unset);
  const withDefaults = applyEnvironmentDefaults(interpolated, env);
  const result = configSchema.safeParse(withDefaults);
  if (!result.success) {
    throw new ConfigError(
      source,
      result.error.issues.flatMap((issue) => describeIssue(issue, unset)),
    );
  }
  return result.data;
}

/** The catalog connection may come from the environment alone (docs/deployment.md lists the variables). */
function applyEnvironmentDefaults(config: unknown, env: Env): unknown {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return config;
  const root = config as Record<string, unknown>;
  const catalog = root.catalog;
  if (catalog !== undefined && (catalog === null || typeof catalog !== 'object' || Array.isArray(catalog))) {
    return config;
  }
  const merged: Record<string, unknown> = { ...(catalog as Record<string, unknown> | undefined) };
  if (merged.baseUrl === undefined && env.CATALOG_API_BASE_URL) merged.baseUrl = env.CATALOG_API_BASE_URL;
  if (merged.apiKey === undefined && env.CATALOG_API_KEY) merged.apiKey = env.CATALOG_API_KEY;
  return { ...root, catalog: merged };
}

export function loadConfig(path: string, env: Env = {}): Config {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const hint =
      code === 'ENOENT'
        ? `not found (copy config/reviewwatch.example.yaml to ${DEFAULT_CONFIG_PATH}, or set REVIEWWATCH_CONFIG)`
        : `cannot be read (${code ?? 'error'})`;
    throw new ConfigError(path, [hint]);
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      path,
      doc.errors.map((e) => `YAML: ${e.message.split('\n')[0]}`),
    );
  }
  return parseConfig(doc.toJS(), env, path);
}

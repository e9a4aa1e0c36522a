/**
 * Queued one-shot faults: "the next N matching requests fail / come back malformed". Rules are consumed
 * first-in first-out, so a test can line up e.g. two 429s and then a 500.
 */
import { badRequest } from './errors.js';
import type { FailSpec, MalformKind, MalformSpec } from './types.js';

interface Rule<T> {
  remaining: number;
  pathIncludes: string | undefined;
  value: T;
}

const MALFORM_KINDS: readonly MalformKind[] = ['bad-field', 'not-json', 'no-envelope'];

function checkCount(count: unknown): number {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) {
    throw badRequest(`count must be a positive integer, got ${JSON.stringify(count)}`);
  }
  return count;
}

function checkPathIncludes(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw badRequest('pathIncludes must be a non-empty string');
  }
  return value;
}

function take<T>(rules: Array<Rule<T>>, target: string): T | undefined {
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i] as Rule<T>;
    if (rule.pathIncludes !== undefined && !target.includes(rule.pathIncludes)) continue;
    rule.remaining--;
    if (rule.remaining <= 0) rules.splice(i, 1);
    return rule.value;
  }
  return undefined;
}

export class FaultQueue {
  private fails: Array<Rule<FailSpec>> = [];
  private malforms: Array<Rule<MalformKind>> = [];

  addFail(count: unknown, spec: FailSpec): void {
    const n = checkCount(count);
    if (typeof spec !== 'object' || spec === null) throw badRequest('fail spec must be an object');
    const { status, retryAfterSec, body } = spec;
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
      throw badRequest(`status must be an integer HTTP status in 200..599, got ${JSON.stringify(status)}`);
    }
    if (
      retryAfterSec !== undefined &&
      retryAfterSec !== null &&
      (typeof retryAfterSec !== 'number' || !Number.isFinite(retryAfterSec) || retryAfterSec < 0)
    ) {
      throw badRequest('retryAfterSec must be a number >= 0');
    }
    const pathIncludes = checkPathIncludes(spec.pathIncludes);
    const value: FailSpec = { status };
    if (typeof retryAfterSec === 'number') value.retryAfterSec = retryAfterSec;
    if (body !== undefined) value.body = body;
    if (pathIncludes !== undefined) value.pathIncludes = pathIncludes;
    this.fails.push({ remaining: n, pathIncludes, value });
  }

  addMalform(count: unknown, spec: MalformSpec = {}): void {
    const n = checkCount(count);
    if (typeof spec !== 'object' || spec === null) throw badRequest('malform spec must be an object');
    const kind = spec.kind ?? 'bad-field';
    if (!MALFORM_KINDS.includes(kind)) {
      throw badRequest(`kind must be one of ${MALFORM_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
    }
    this.malforms.push({ remaining: n, pathIncludes: checkPathIncludes(spec.pathIncludes), value: kind });
  }

  /** The fault for this request (path with query), consuming one use of it. */
  takeFail(target: string): FailSpec | undefined {
    return this.fails.length === 0 ? undefined : take(this.fails, target);
  }

  takeMalform(target: string): MalformKind | undefined {
    return this.malforms.length === 0 ? undefined : take(this.malforms, target);
  }

  pending(): { fail: number; malform: number } {
    let fail = 0;
    let malform = 0;
    for (const r of this.fails) fail += r.remaining;
    for (const r of this.malforms) malform += r.remaining;
    return { fail, malform };
  }

  clear(): void {
    this.fails = [];
    this.malforms = [];
  }
}

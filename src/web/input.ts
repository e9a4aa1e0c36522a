/**
 * What the inbox accepts from a request, checked in one place: each route declares its query parameters
 * (`defineQuery`) and the shape of its body (a zod schema), and anything else is refused with a
 * `BadInputError` that names the parameter or field and says what is accepted. The error handler
 * (errors.ts) turns it into a 400: JSON under /api/, a page elsewhere. A parameter that is not understood
 * is never answered as if it were absent: `?limit=abc` or a misspelt `?stauts=new` would otherwise show a
 * list the caller did not ask for.
 */
import type { RequestHandler } from 'express';
import type { z } from 'zod';

/** One thing wrong with the input: the parameter or body field it is about, and what is accepted. */
export interface Problem {
  name: string;
  message: string;
}

export type InputPart = 'query' | 'body';

/** Input a route does not accept; answered with `status` and the problems, never a 500. */
export class BadInputError extends Error {
  readonly status: number;
  readonly part: InputPart;
  readonly problems: readonly Problem[];
  readonly hint: string | undefined;

  constructor(
    part: InputPart,
    problems: readonly Problem[],
    options: { status?: number; hint?: string } = {},
  ) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'BadInputError';
    this.part = part;
    this.problems = problems;
    this.status = options.status ?? 400;
    this.hint = options.hint;
  }
}

/** A value as it arrived, quoted and cut short for a message. */
export function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/**
 * A query parameter: what it accepts (said in every refusal: "limit is <accepted>"), how one value is read
 * (a zod schema from the text to the value), and, for a list, the order its values are kept in. A list
 * comes repeated (`stars=1&stars=2`, what a form sends) or comma-separated (`stars=1,2`, what a link
 * carries); its values are kept once each, in that order, so a view has one canonical URL.
 */
export interface Param<T> {
  accepted: string;
  schema: z.ZodType<T, string>;
  order?: readonly T[];
}

export type ListParam<T> = Param<T> & { order: readonly T[] };

type ValueOf<P> = P extends ListParam<infer T> ? T[] : P extends Param<infer T> ? T : never;

export type QueryOf<S extends Record<string, Param<unknown>>> = { [K in keyof S]?: ValueOf<S[K]> };

export interface QuerySpec<S extends Record<string, Param<unknown>>> {
  readonly params: S;
  /**
   * The valid parameters and what is wrong with the others; a page shows the valid part in its form.
   * Empty values (`?role=`, what a form sends for "any") count as absent.
   */
  read(raw: unknown): { query: QueryOf<S>; problems: Problem[] };
  /** The parameters, or a `BadInputError` naming every one that is wrong. */
  parse(raw: unknown): QueryOf<S>;
}

export function param<T>(accepted: string, schema: z.ZodType<T, string>): Param<T> {
  return { accepted, schema };
}

export function listParam<T>(
  accepted: string,
  schema: z.ZodType<T, string>,
  order: readonly T[],
): ListParam<T> {
  return { accepted, schema, order };
}

/** The texts of a raw parameter (express gives a string or, repeated, an array; nested forms are refused). */
function texts(value: unknown): string[] | undefined {
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((v) => typeof v === 'string')) return undefined;
  return list.map((v) => v.trim()).filter((v) => v !== '');
}

export function defineQuery<S extends Record<string, Param<unknown>>>(
  params: S,
  options: { check?: (query: QueryOf<S>) => Problem[] } = {},
): QuerySpec<S> {
  const names = Object.keys(params);
  const accepted = names.length > 0 ? `it takes ${names.join(', ')}` : 'it takes no query parameters';
  const read = (raw: unknown) => {
    const problems: Problem[] = [];
    const query: Record<string, unknown> = {};
    const entries = typeof raw === 'object' && raw !== null ? Object.entries(raw) : [];
    for (const [name, value] of entries) {
      const spec = Object.hasOwn(params, name) ? params[name] : undefined;
      if (!spec) {
        problems.push({ name, message: `${shown(name)} is not a parameter of this page: ${accepted}` });
        continue;
      }
      const given = texts(value);
      if (given === undefined) {
        problems.push({ name, message: `${name} is ${spec.accepted}` });
        continue;
      }
      if (given.length === 0) continue;
      const { order } = spec;
      if (!order && given.length > 1) {
        problems.push({ name, message: `${name} is given once, not ${given.length} times` });
        continue;
      }
      const items = order ? given.flatMap((v) => v.split(',').map((s) => s.trim())).filter(Boolean) : given;
      const values: unknown[] = [];
      const refused: string[] = [];
      for (const item of items) {
        const parsed = spec.schema.safeParse(item);
        if (parsed.success) values.push(parsed.data);
        else refused.push(shown(item));
      }
      if (refused.length > 0) {
        problems.push({ name, message: `${name} is ${spec.accepted}, not ${refused.join(', ')}` });
      }
      if (values.length === 0) continue;
      query[name] = order ? order.filter((v) => values.includes(v)) : values[0];
    }
    const typed = query as QueryOf<S>;
    if (problems.length === 0 && options.check) problems.push(...options.check(typed));
    return { query: typed, problems };
  };
  return {
    params,
    read,
    parse(raw) {
      const { query, problems } = read(raw);
      if (problems.length > 0) throw new BadInputError('query', problems);
      return query;
    },
  };
}

/** A route that takes no query parameters. */
export const NO_QUERY = defineQuery({});

/**
 * A body as `schema` reads it, or a `BadInputError` naming each field that is wrong (`body` for the
 * whole), with `hint` saying what to send.
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown, hint: string): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const name = issue.keys.join(', ');
      return { name, message: `${issue.keys.map(shown).join(', ')}: not a field of this body` };
    }
    const name = issue.path.map(String).join('.') || 'body';
    return { name, message: `${name}: ${issue.message}` };
  });
  throw new BadInputError('body', problems, { hint });
}

/** Middleware for a route without query parameters: refuses any. */
export const noQuery: RequestHandler = (req, _res, next) => {
  NO_QUERY.parse(req.query);
  next();
};

/** A review's row id from the path (`/reviews/:id`); undefined for anything that is not one (a 404). */
export function reviewIdParam(raw: unknown): number | undefined {
  return typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

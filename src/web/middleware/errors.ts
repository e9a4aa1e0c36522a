/**
 * How the inbox answers a request that failed. Input it does not accept (a `BadInputError`, a body the
 * parsers refused, a change the store refused) is a 4xx that says what was wrong: JSON under /api/ and for
 * clients that ask for JSON, a page for browsers. Anything else is a bug or a broken dependency: logged with
 * its stack, answered with a 500 that shows nothing of the server's insides.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from '../../log.js';
import { TriageInputError } from '../../store/triage.js';
import type { Principal } from '../auth.js';
import { BadInputError, type Problem } from '../input.js';
import { problemsPage } from '../pages/message.js';

/** The largest body a form or the API may send (a note is at most 10,000 characters). */
export const BODY_LIMIT_BYTES = 64 * 1024;

interface Refusal {
  status: number;
  /** A few words, the JSON's `error`. */
  error: string;
  problems: readonly Problem[];
  hint?: string | undefined;
}

/** The shape of the errors body-parser (express.json, express.urlencoded) and the router raise. */
interface HttpError {
  status: number;
  type?: string;
  expose?: boolean;
  message: string;
}

function isHttpError(err: unknown): err is HttpError {
  if (typeof err !== 'object' || err === null) return false;
  const { status, message } = err as Record<string, unknown>;
  return typeof status === 'number' && typeof message === 'string';
}

/** What to answer for an error a client caused; undefined for one it did not (a 500). */
export function refusalOf(err: unknown): Refusal | undefined {
  if (err instanceof BadInputError) {
    return {
      status: err.status,
      error: err.part === 'query' ? 'bad query parameter' : 'bad body',
      problems: err.problems,
      hint: err.hint,
    };
  }
  if (err instanceof TriageInputError) {
    return { status: 400, error: err.message, problems: [{ name: 'body', message: err.message }] };
  }
  if (!isHttpError(err) || err.status < 400 || err.status >= 500) return undefined;
  const body = (message: string, hint?: string): Refusal => ({
    status: err.status,
    error: message,
    problems: [{ name: 'body', message }],
    hint,
  });
  switch (err.type) {
    case 'entity.parse.failed':
      return body(
        `the body is not valid JSON (${err.message})`,
        'send a whole JSON object with Content-Type: application/json',
      );
    case 'entity.too.large':
      return body(`the body is larger than ${BODY_LIMIT_BYTES / 1024} KB, the most accepted`);
    case 'parameters.too.many':
      return body('the form has too many fields');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return body(err.message, 'send UTF-8 without a Content-Encoding');
    default: {
      if (err instanceof URIError) {
        // The router's: a path parameter that is not valid percent-encoding.
        const message = 'the path is not valid percent-encoding';
        return { status: err.status, error: message, problems: [{ name: 'path', message }] };
      }
      // The rest of body-parser's: a compressed body that does not inflate, a request cut short.
      return body(
        err.expose === false ? 'the body could not be read' : `the body could not be read (${err.message})`,
      );
    }
  }
}

/** Whether the answer should be JSON: the API, or a client that asks for JSON over HTML. */
export function wantsJson(req: Request): boolean {
  if (req.path.startsWith('/api/')) return true;
  return req.headers.accept !== undefined && req.accepts(['html', 'json']) === 'json';
}

const TITLES: Record<number, string> = {
  400: 'That request cannot be answered',
  413: 'That form is too large',
  415: 'That form cannot be read',
};

export interface ErrorAnswerOptions {
  logger: Logger;
  /** For the page's header: who is logged in, if anyone. */
  principalOf(req: Request): Principal | undefined;
}

/** The inbox's error handler: a 4xx with its reasons, or a 500 logged with its stack. */
export function answerErrors(options: ErrorAnswerOptions): ErrorRequestHandler {
  const { logger } = options;
  return (err: unknown, req: Request, res: Response, next) => {
    // A streamed answer (the CSV export) that failed half-way can only be cut off: express does that.
    if (res.headersSent) return next(err);
    const refusal = refusalOf(err);
    if (refusal) {
      logger.debug(
        { method: req.method, path: req.path, status: refusal.status, problems: refusal.problems },
        'refused a request',
      );
      answer(req, res, refusal, options);
      return;
    }
    logger.error({ err, method: req.method, path: req.path }, 'inbox request failed');
    answer(req, res, { status: 500, error: 'internal error', problems: [] }, options);
  };
}

function answer(req: Request, res: Response, refusal: Refusal, options: ErrorAnswerOptions): void {
  res.status(refusal.status);
  if (wantsJson(req)) {
    res.json({
      error: refusal.error,
      ...(refusal.problems.length > 0 ? { problems: refusal.problems } : {}),
      ...(refusal.hint ? { hint: refusal.hint } : {}),
      ...(refusal.status === 500 ? { hint: 'the server logged what went wrong; try again later' } : {}),
    });
    return;
  }
  const principal = principalOrNone(req, options);
  const back = req.method === 'GET' || req.method === 'HEAD' ? '/' : backOf(req.path);
  const page =
    refusal.status === 500
      ? problemsPage({
          title: 'Something went wrong',
          intro:
            'The inbox could not answer this request. What went wrong was logged for whoever runs reviewwatch; try again in a moment.',
          problems: [],
          back,
          principal,
        })
      : problemsPage({
          title: TITLES[refusal.status] ?? 'That request cannot be answered',
          intro:
            req.method === 'POST'
              ? 'Nothing was changed:'
              : 'The address asks for something the inbox does not understand:',
          problems: refusal.problems.map((p) => p.message),
          back,
          principal,
        });
  res.type('html').send(page);
}

/** Who is logged in, for the page's header; nobody when finding out fails too (the store may be what broke). */
function principalOrNone(req: Request, options: ErrorAnswerOptions): Principal | undefined {
  try {
    return options.principalOf(req);
  } catch {
    return undefined;
  }
}

/** Where a refused form goes back to: the review it was about, else the inbox. */
function backOf(path: string): string {
  const review = /^\/reviews\/(\d{1,15})\//.exec(path);
  return review ? `/reviews/${review[1]}` : '/';
}

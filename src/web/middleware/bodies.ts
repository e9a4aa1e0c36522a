/**
 * Reading bodies: forms (`application/x-www-form-urlencoded`) and JSON, up to 64 KB. A larger body is a
 * 413 and a malformed one a 400 (middleware/errors.ts); a body of another type than its route reads is
 * refused here rather than left unread, which would look to the route like no body at all.
 */
import express, { type RequestHandler } from 'express';
import { BadInputError } from '../input.js';
import { BODY_LIMIT_BYTES } from './errors.js';

export const JSON_TYPE = 'application/json';
export const FORM_TYPE = 'application/x-www-form-urlencoded';

export const bodyParsers: RequestHandler[] = [
  express.urlencoded({ extended: false, limit: BODY_LIMIT_BYTES }),
  express.json({ limit: BODY_LIMIT_BYTES }),
];

/** Refuses a body of another type; a request without a body passes (its schema says what it lacks). */
export function bodyOfType(type: typeof JSON_TYPE | typeof FORM_TYPE): RequestHandler {
  return (req, _res, next) => {
    if (req.is(type) !== false) return next();
    const given = req.headers['content-type'];
    next(
      new BadInputError('body', [
        {
          name: 'content-type',
          message: `the body is ${given ? `of type ${given}` : 'of no stated type'}; this takes ${type}`,
        },
      ]),
    );
  };
}

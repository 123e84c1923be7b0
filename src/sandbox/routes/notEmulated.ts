/**
 * Endpoints of the service (called by its official SDK 0.0.12) that the sandbox does not
 * emulate: a 501 `{success: false, error}` naming the endpoint, never a misleading 404 or 405.
 * Parsing needs a layout model the sandbox does not have offline.
 */
import { HttpError } from '../http.js';
import type { Method, Route } from '../router.js';

const NOT_EMULATED: ReadonlyArray<[Method, string, string]> = [
  ['POST', '/parse', 'parsing files into chunks'],
  ['POST', '/parse/async', 'parsing files into chunks'],
  ['GET', '/parser_runs/:id', 'parser runs'],
  ['DELETE', '/parser_runs/:id', 'parser runs'],
];

export const notEmulatedRoutes: Route[] = NOT_EMULATED.map(([method, pattern, what]) => ({
  method,
  pattern,
  body: 'none',
  handler: () => {
    throw new HttpError(501, `${method} ${pattern} is an endpoint of the service that the sandbox does not emulate (${what}); run it against the service`);
  },
}));

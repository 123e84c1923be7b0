/**
 * Endpoints of the service that the sandbox does not emulate: a 501 naming the endpoint, never a
 * misleading 404 or 405. 2025-04-21 callers (the official SDK 0.0.12) get `{success: false,
 * error}`; 2026-02-09 callers (SDK 1.17) an ApiError with code NOT_IMPLEMENTED. Parsing, editing
 * and form detection need layout and form models the sandbox does not have offline.
 */
import { HttpError } from '../http.js';
import type { Method, Route } from '../router.js';

type Entry = [Method, string, string];

const NOT_EMULATED: readonly Entry[] = [
  ['POST', '/parse', 'parsing files into chunks'],
  ['POST', '/parse/async', 'parsing files into chunks'],
  ['GET', '/parser_runs/:id', 'parser runs'],
  ['DELETE', '/parser_runs/:id', 'parser runs'],
];

/** The 16 parse, edit and form detection operations of API 2026-02-09 (api-2026-02-09.md section 2). */
const NOT_EMULATED_2026: readonly Entry[] = [
  ['POST', '/parse', 'parsing files'],
  ['GET', '/parse_runs', 'parse runs'],
  ['POST', '/parse_runs', 'parse runs'],
  ['POST', '/parse_runs/batch', 'parse runs'],
  ['GET', '/parse_runs/:id', 'parse runs'],
  ['DELETE', '/parse_runs/:id', 'parse runs'],
  ['POST', '/parse_runs/:id/cancel', 'parse runs'],
  ['POST', '/edit', 'editing files'],
  ['POST', '/edit_runs', 'edit runs'],
  ['GET', '/edit_runs/:id', 'edit runs'],
  ['DELETE', '/edit_runs/:id', 'edit runs'],
  ['GET', '/edit_templates/:id', 'edit templates'],
  ['POST', '/edit_schemas/generate', 'edit schema generation'],
  ['POST', '/detect_form', 'form detection'],
  ['POST', '/form_detection_runs', 'form detection runs'],
  ['GET', '/form_detection_runs/:id', 'form detection runs'],
];

function routes(entries: readonly Entry[], versions: Route['versions']): Route[] {
  return entries.map(([method, pattern, what]) => ({
    method,
    pattern,
    versions,
    body: 'none',
    handler: () => {
      throw new HttpError(501, `${method} ${pattern} is an endpoint of the service that the sandbox does not emulate (${what}); run it against the service`);
    },
  }));
}

export const notEmulatedRoutes: Route[] = [...routes(NOT_EMULATED, 'legacy'), ...routes(NOT_EMULATED_2026, 'current')];

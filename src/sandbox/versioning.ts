import type { IncomingHttpHeaders } from 'node:http';
import type { TokenRecord } from './auth.js';
import type { Layout } from './core.js';
import { HttpError } from './http.js';

/** The releases of spec part 9 and api-2026-02-09.md, oldest first. */
export const API_VERSIONS = ['2024-02-01', '2024-07-30', '2024-11-14', '2024-12-23', '2025-04-21', '2026-02-09'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/**
 * The default of things that carry a version of their own when none is given (webhook endpoints
 * defined in the sandbox's config file). Still 2025-04-21: their payloads keep today's shapes.
 */
export const CURRENT_VERSION: ApiVersion = '2025-04-21';
/** The service's current API version (api-2026-02-09.md): extractors, classifiers, splitters. */
export const LATEST_VERSION: ApiVersion = '2026-02-09';

/**
 * Which family of routes and answer shapes a version gets: `legacy` (2025-04-21 and older:
 * `{success, ...}` bodies) or `current` (2026-02-09: bare objects, `{object: "list", data}` lists,
 * `ApiError` bodies). See router.ts for which routes each family is served.
 */
export type Family = 'legacy' | 'current';
export function familyOf(version: ApiVersion): Family {
  return version >= LATEST_VERSION ? 'current' : 'legacy';
}
/** Tokens created before this date may omit the header (part 9 rule 2). */
export const HEADER_REQUIRED_FROM = '2025-04-21';
/** ...and are then pinned to this version. */
export const PINNED_VERSION: ApiVersion = '2024-12-23';
export const DEFAULT_VERSION_HEADER = 'x-service-api-version';
/** The real service's name for the same header (service-facts.md), sent by its official SDK. */
export const SERVICE_SDK_VERSION_HEADER = 'x-extend-api-version';
/** Read by default: the spec's name and the real service's, so the official SDK works unchanged. */
export const DEFAULT_VERSION_HEADERS: readonly string[] = [DEFAULT_VERSION_HEADER, SERVICE_SDK_VERSION_HEADER];

/** The version in effect and the header names to echo it under (the one it came in, or every accepted name). */
export interface VersionInEffect {
  version: ApiVersion;
  echo: readonly string[];
}

const KNOWN: ReadonlySet<string> = new Set(API_VERSIONS);

export function isApiVersion(v: string): v is ApiVersion {
  return KNOWN.has(v);
}

/**
 * Config and splitter-output layout of a version's legacy routes (`/processors`...): 2025-04-21
 * and later use the 2025-04-21 keys and `splits` (2026-02-09 kept those routes with that layout,
 * spec 3.1); every older version gets the 2024-11-14 keys and `subDocumentClassifications`. The
 * 2026-02-09 routes (`/extractors`...) translate configs themselves (current.ts).
 */
export function layoutOf(version: ApiVersion): Layout {
  return version >= '2025-04-21' ? '2025-04-21' : '2024-11-14';
}

/**
 * The version in effect for one request: a version header (any of `headerNames`; names are
 * case-insensitive, Node lowercases them) always wins; else the token's own default (an
 * organisation pinned by the operator), else the part 9 rule: tokens created before 2025-04-21
 * are pinned to 2024-12-23, newer ones must send the header and get a 400 that names it.
 * The same version under two names is fine; two different versions are a 400.
 */
export function resolveVersion(headers: IncomingHttpHeaders, token: TokenRecord, headerNames: readonly string[]): VersionInEffect {
  let found: { name: string; value: string } | undefined;
  for (const name of headerNames) {
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value === undefined || value === '') continue;
    if (found && found.value !== value) throw new HttpError(400, `conflicting API versions: header ${found.name} says "${found.value}", header ${name} says "${value}"; send one`);
    found ??= { name, value };
  }
  if (found) {
    const v = found.value;
    if (isApiVersion(v)) return { version: v, echo: [found.name] };
    throw new HttpError(
      400,
      /^\d{4}-\d{2}-\d{2}$/.test(v)
        ? `unsupported API version "${v}" in header ${found.name}; supported: ${API_VERSIONS.join(', ')}`
        : `header ${found.name} must be an API version date YYYY-MM-DD (for example ${LATEST_VERSION})`,
    );
  }
  if (token.apiVersion) return { version: token.apiVersion, echo: headerNames };
  if (token.createdAt < HEADER_REQUIRED_FROM) return { version: PINNED_VERSION, echo: headerNames };
  const names = headerNames.join(' or ');
  throw new HttpError(
    400,
    `missing header ${names}: API tokens created on or after ${HEADER_REQUIRED_FROM} must send the API version, for example "${headerNames[0]}: ${LATEST_VERSION}"`,
  );
}

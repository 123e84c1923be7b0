import type { IncomingHttpHeaders } from 'node:http';
import type { TokenRecord } from './auth.js';
import type { Layout } from './core.js';
import { HttpError } from './http.js';

/** The releases of spec part 9, oldest first. */
export const API_VERSIONS = ['2024-02-01', '2024-07-30', '2024-11-14', '2024-12-23', '2025-04-21'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

export const CURRENT_VERSION: ApiVersion = '2025-04-21';
/** Tokens created before this date may omit the header (part 9 rule 2). */
export const HEADER_REQUIRED_FROM = '2025-04-21';
/** ...and are then pinned to this version. */
export const PINNED_VERSION: ApiVersion = '2024-12-23';
export const DEFAULT_VERSION_HEADER = 'x-service-api-version';

const KNOWN: ReadonlySet<string> = new Set(API_VERSIONS);

export function isApiVersion(v: string): v is ApiVersion {
  return KNOWN.has(v);
}

/**
 * Config and splitter-output layout of a version: 2025-04-21 and later use the new config keys
 * and `splits`; every older version gets the 2024-11-14 keys and `subDocumentClassifications`
 * (the sandbox has no separate 2024-07-30 config shape; the migration core knows two layouts).
 */
export function layoutOf(version: ApiVersion): Layout {
  return version >= '2025-04-21' ? '2025-04-21' : '2024-11-14';
}

/**
 * The version in effect for one request: the header (name case-insensitive: Node lowercases
 * header names), else the token's own default (an organisation pinned by the operator), else
 * the part 9 rule: tokens created before 2025-04-21 are pinned to 2024-12-23, newer ones must
 * send the header and get a 400 that names it.
 */
export function resolveVersion(headers: IncomingHttpHeaders, token: TokenRecord, headerName: string): ApiVersion {
  const raw = headers[headerName];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value !== undefined && value.trim() !== '') {
    const v = value.trim();
    if (isApiVersion(v)) return v;
    throw new HttpError(
      400,
      /^\d{4}-\d{2}-\d{2}$/.test(v)
        ? `unsupported API version "${v}" in header ${headerName}; supported: ${API_VERSIONS.join(', ')}`
        : `header ${headerName} must be an API version date YYYY-MM-DD (for example ${CURRENT_VERSION})`,
    );
  }
  if (token.apiVersion) return token.apiVersion;
  if (token.createdAt < HEADER_REQUIRED_FROM) return PINNED_VERSION;
  throw new HttpError(
    400,
    `missing header ${headerName}: API tokens created on or after ${HEADER_REQUIRED_FROM} must send the API version, for example "${headerName}: ${CURRENT_VERSION}"`,
  );
}

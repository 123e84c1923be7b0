import { randomBytes } from 'node:crypto';
import { HttpError } from './http.js';
import type { ApiVersion } from './versioning.js';

/** Every token the sandbox makes starts so: how `init` tells a sandbox's address from a service's. */
export const DEV_TOKEN_PREFIX = 'sk_sandbox_';

/**
 * A token the sandbox accepts. `processors`/`workflows` list the ids the token may use; absent
 * or "*" means all (a workspace-wide key). Scoping by id is the sandbox's model of spec part 5
 * rule 4 ("a valid token without permission for the requested workflow or processor").
 */
export interface TokenRecord {
  token: string;
  name: string;
  /** ISO date (YYYY-MM-DD or a full timestamp); decides the part 9 header rule. */
  createdAt: string;
  processors: ReadonlySet<string> | '*';
  workflows: ReadonlySet<string> | '*';
  /** Version used when the request has no header (an organisation default set by the operator). */
  apiVersion?: ApiVersion;
}

/** One entry of the tokens file (`--tokens FILE`); the file is checked by tokensFile.ts. */
export interface TokenSpec {
  token: string;
  name?: string;
  createdAt: string;
  processors?: '*' | string[];
  workflows?: '*' | string[];
  apiVersion?: ApiVersion;
}

export function toRecords(specs: TokenSpec[]): TokenRecord[] {
  return specs.map((t, i) => ({
    token: t.token,
    name: t.name ?? `token ${i + 1}`,
    createdAt: t.createdAt.slice(0, 10),
    processors: t.processors === undefined || t.processors === '*' ? '*' : new Set(t.processors),
    workflows: t.workflows === undefined || t.workflows === '*' ? '*' : new Set(t.workflows),
    apiVersion: t.apiVersion,
  }));
}

/** A fresh development token: workspace-wide, created today (so it must send the header). */
export function devToken(value?: string): TokenRecord {
  return {
    token: value ?? `${DEV_TOKEN_PREFIX}${randomBytes(18).toString('base64url')}`,
    name: 'default dev token',
    createdAt: new Date().toISOString().slice(0, 10),
    processors: '*',
    workflows: '*',
  };
}

export class TokenRegistry {
  private readonly byValue = new Map<string, TokenRecord>();
  constructor(records: TokenRecord[]) {
    for (const r of records) this.byValue.set(r.token, r);
  }

  /** 401 for a missing or unknown token; the token itself never appears in a message. */
  authenticate(header: string | undefined): TokenRecord {
    if (!header) throw new HttpError(401, 'missing Authorization header: send "Authorization: Bearer <API token>"', { 'www-authenticate': 'Bearer' });
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new HttpError(401, 'malformed Authorization header: expected "Bearer <API token>"', { 'www-authenticate': 'Bearer' });
    const rec = this.byValue.get(m[1]);
    if (!rec) throw new HttpError(401, 'invalid API token', { 'www-authenticate': 'Bearer error="invalid_token"' });
    return rec;
  }
}

export function mayUseProcessor(token: TokenRecord, processorId: string): boolean {
  return token.processors === '*' || token.processors.has(processorId);
}

export function assertProcessorAccess(token: TokenRecord, processorId: string): void {
  if (!mayUseProcessor(token, processorId)) throw new HttpError(403, `this API token may not use processor ${processorId}`);
}

export function mayUseWorkflow(token: TokenRecord, workflowId: string): boolean {
  return token.workflows === '*' || token.workflows.has(workflowId);
}

export function assertWorkflowAccess(token: TokenRecord, workflowId: string): void {
  if (!mayUseWorkflow(token, workflowId)) throw new HttpError(403, `this API token may not use workflow ${workflowId}`);
}

/** Workspace settings (workflow definitions, webhook endpoints) need a token scoped to everything. */
export function assertWorkspaceToken(token: TokenRecord, what: string): void {
  if (token.processors !== '*' || token.workflows !== '*') throw new HttpError(403, `${what} needs a workspace-wide API token (this one is scoped to some processors or workflows)`);
}

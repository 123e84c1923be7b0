import type { Ctx } from './context.js';
import type { HandlerResult, Req } from './http.js';
import type { Family } from './versioning.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface Route {
  method: Method;
  /** `/processors/:id/versions/:versionId` (without the optional /v1 prefix). */
  pattern: string;
  /** How the body is read: parsed JSON, raw bytes (multipart), or not at all. */
  body?: 'json' | 'raw' | 'none';
  /** No token, no version header (health check, presigned downloads). */
  public?: boolean;
  /**
   * The API versions that have this route (versioning.ts `Family`): `legacy` (default: 2025-04-21
   * and older), `current` (2026-02-09 only) or `both` (the legacy `/processors`, `/processor_runs`
   * and `/batch_processor_runs/{id}` routes that 2026-02-09 kept, and the sandbox's own extensions).
   * The same path may have one route per family (GET /files answers `{success, files}` to 2025-04-21
   * and `{object: "list", data}` to 2026-02-09); both call the same core operation.
   */
  versions?: 'legacy' | 'current' | 'both';
  /**
   * A `both` route answers errors to 2026-02-09 callers as ApiError (the sandbox's own
   * extensions), not `{success: false, error}` (the legacy routes 2026-02-09 kept).
   */
  apiErrors?: boolean;
  handler: (req: Req, ctx: Ctx) => HandlerResult | Promise<HandlerResult>;
}

interface Compiled {
  route: Route;
  parts: string[];
}

/** `otherFamily`: the path exists, but only for the other family of API versions. */
export type Match = { route: Route; params: Record<string, string> } | { allowed: Method[] } | { otherFamily: Family } | undefined;

function serves(route: Route, family: Family): boolean {
  const v = route.versions ?? 'legacy';
  return v === 'both' || v === family || route.public === true;
}

/** A tiny router: routes grouped by segment count, literal segments compared first. */
export class Router {
  private readonly bySize = new Map<number, Compiled[]>();

  add(...routes: Route[]): this {
    for (const route of routes) {
      const parts = route.pattern.split('/').filter(Boolean);
      const list = this.bySize.get(parts.length) ?? [];
      list.push({ route, parts });
      // Literal segments win over parameters (`/evaluation_set_items/bulk` before `/:id`).
      list.sort((a, b) => score(b.parts) - score(a.parts));
      this.bySize.set(parts.length, list);
    }
    return this;
  }

  match(method: string, segments: string[], family: Family = 'legacy'): Match {
    const list = this.bySize.get(segments.length);
    if (!list) return undefined;
    const allowed: Method[] = [];
    let other: Family | undefined;
    for (const c of list) {
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < c.parts.length; i++) {
        const p = c.parts[i];
        if (p.charCodeAt(0) === 58 /* : */) params[p.slice(1)] = segments[i];
        else if (p !== segments[i]) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      if (!serves(c.route, family)) {
        if (c.route.method === method) other = family === 'current' ? 'legacy' : 'current';
        continue;
      }
      if (c.route.method === method) return { route: c.route, params };
      allowed.push(c.route.method);
    }
    if (allowed.length) return { allowed };
    return other ? { otherFamily: other } : undefined;
  }
}

function score(parts: string[]): number {
  let s = 0;
  for (let i = 0; i < parts.length; i++) if (!parts[i].startsWith(':')) s += 1 << (parts.length - i);
  return s;
}

import type { Ctx } from './context.js';
import type { HandlerResult, Req } from './http.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface Route {
  method: Method;
  /** `/processors/:id/versions/:versionId` (without the optional /v1 prefix). */
  pattern: string;
  /** How the body is read: parsed JSON, raw bytes (multipart), or not at all. */
  body?: 'json' | 'raw' | 'none';
  /** No token, no version header (health check, presigned downloads). */
  public?: boolean;
  handler: (req: Req, ctx: Ctx) => HandlerResult | Promise<HandlerResult>;
}

interface Compiled {
  route: Route;
  parts: string[];
}

export type Match = { route: Route; params: Record<string, string> } | { allowed: Method[] } | undefined;

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

  match(method: string, segments: string[]): Match {
    const list = this.bySize.get(segments.length);
    if (!list) return undefined;
    const allowed: Method[] = [];
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
      if (c.route.method === method) return { route: c.route, params };
      allowed.push(c.route.method);
    }
    return allowed.length ? { allowed } : undefined;
  }
}

function score(parts: string[]): number {
  let s = 0;
  for (let i = 0; i < parts.length; i++) if (!parts[i].startsWith(':')) s += 1 << (parts.length - i);
  return s;
}

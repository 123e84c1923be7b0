// A small in-memory service that answers the 2026-02-09 extractor/classifier/splitter routes in
// the shapes of spec section 7 (bare objects, {object: "list", data, nextPageToken?}, ApiError
// bodies), with what the sandbox cannot do: lose an answer after the work, record each request's
// headers. Only what the processors commands call.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;
const KINDS = { extractors: 'extractor', classifiers: 'classifier', splitters: 'splitter' } as const;
type Kind = (typeof KINDS)[keyof typeof KINDS];
const PREFIX: Record<Kind, string> = { extractor: 'ex', classifier: 'cl', splitter: 'spl' };

interface Version {
  id: string;
  version: string;
  description: string | null;
  config: Json;
  createdAt: string;
}
interface Stored {
  kind: Kind;
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  /** The draft first. */
  versions: Version[];
}

export interface Stub2026 {
  url: string;
  token: string;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  /** Adds an object under an id of the caller's choice (a 2025-04-21 dp_ id, say). */
  seed(kind: Kind, id: string, name: string, config: Json): void;
  /** The next request of this method and path is carried out, and its answer lost (the connection dropped). */
  loseNextAnswer(method: string, path: string): void;
  close(): Promise<void>;
}

export async function startStub2026(opts: { pageSize?: number } = {}): Promise<Stub2026> {
  const token = 'stub-token-2026';
  const store = new Map<string, Stored>();
  const requests: Stub2026['requests'] = [];
  let lose: { method: string; path: string } | undefined;
  let n = 0;
  const now = () => new Date(Date.UTC(2026, 2, 1) + ++n * 1000).toISOString();
  const nextId = (p: string) => `${p}_${(++n).toString(36)}`;

  const versionObj = (s: Stored, v: Version, withConfig: boolean): Json => ({
    object: `${s.kind}_version`, id: v.id, description: v.description, version: v.version, [`${s.kind}Id`]: s.id,
    createdAt: v.createdAt, createdBy: { type: 'api_key', name: 'ci' }, ...(withConfig ? { config: v.config } : {}),
  });
  const summary = (s: Stored): Json => ({ object: s.kind, id: s.id, name: s.name, createdAt: s.createdAt, updatedAt: s.updatedAt });
  const full = (s: Stored): Json => ({ ...summary(s), draftVersion: versionObj(s, s.versions[0], true) });
  const add = (kind: Kind, id: string, name: string, config: Json): Stored => {
    const t = now();
    const s: Stored = { kind, id, name, createdAt: t, updatedAt: t, versions: [{ id: nextId(`${PREFIX[kind]}v`), version: 'draft', description: null, config, createdAt: t }] };
    store.set(id, s);
    return s;
  };

  const error = (status: number, code: string, message: string) => ({ status, body: { code, message, retryable: status === 429 || status >= 500, requestId: `req_${++n}` } });
  const list = (items: Json[], q: URLSearchParams) => {
    const size = Number(q.get('maxPageSize') ?? opts.pageSize ?? 2);
    const from = Number(q.get('nextPageToken') ?? 0);
    const data = items.slice(from, from + size);
    return { status: 200, body: { object: 'list', data, ...(from + size < items.length ? { nextPageToken: String(from + size) } : {}) } };
  };

  function route(method: string, url: URL, body: Json, headers: http.IncomingHttpHeaders): { status: number; body: unknown } {
    if (headers.authorization !== `Bearer ${token}`) return error(401, 'UNAUTHORIZED', 'invalid API key');
    if (headers['x-extend-api-version'] !== '2026-02-09') return error(400, 'INVALID_REQUEST', `unsupported API version "${String(headers['x-extend-api-version'])}" in header x-extend-api-version`);
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const kind = (KINDS as Record<string, Kind | undefined>)[parts[0]];
    if (!kind) return error(404, 'NOT_FOUND', `no such endpoint ${method} ${url.pathname}`);
    if (parts.length === 1 && method === 'GET') {
      const dir = url.searchParams.get('sortDir') === 'asc' ? 1 : -1;
      const all = [...store.values()].filter((s) => s.kind === kind).sort((a, b) => dir * a.createdAt.localeCompare(b.createdAt));
      return list(all.map(summary), url.searchParams);
    }
    if (parts.length === 1 && method === 'POST') {
      if (typeof body.name !== 'string') return error(400, 'INVALID_REQUEST', 'name is required');
      const config = (body.config ?? {}) as Json;
      if ('type' in config) return error(400, 'INVALID_REQUEST', 'config.type is not accepted: the route carries the type');
      return { status: 200, body: full(add(kind, nextId(PREFIX[kind]), body.name, config)) };
    }
    const s = store.get(parts[1]);
    if (!s || s.kind !== kind) return error(404, 'NOT_FOUND', `${kind} ${parts[1]} not found`);
    if (parts.length === 2 && method === 'GET') return { status: 200, body: full(s) };
    if (parts.length === 2 && method === 'POST') {
      if (body.config !== undefined && 'type' in (body.config as Json)) return error(400, 'INVALID_REQUEST', 'config.type is not accepted');
      if (typeof body.name === 'string') s.name = body.name;
      if (body.config !== undefined) s.versions[0].config = body.config as Json;
      s.updatedAt = now();
      return { status: 200, body: full(s) };
    }
    if (parts[2] !== 'versions') return error(404, 'NOT_FOUND', 'no such endpoint');
    if (parts.length === 3 && method === 'GET') return list(s.versions.map((v) => versionObj(s, v, false)), url.searchParams);
    if (parts.length === 3 && method === 'POST') {
      const published = s.versions.slice(1);
      const [maj, min] = published.length ? published[0].version.split('.').map(Number) : [0, 0];
      const version = body.releaseType === 'major' ? `${maj + 1}.0` : published.length ? `${maj}.${min + 1}` : '1.0';
      const v: Version = { id: nextId(`${PREFIX[kind]}v`), version, description: (body.description as string | undefined) ?? null, config: structuredClone(s.versions[0].config), createdAt: now() };
      s.versions.splice(1, 0, v);
      return { status: 200, body: versionObj(s, v, true) };
    }
    const v = s.versions.find((x) => x.id === parts[3]);
    if (parts.length === 4 && method === 'GET' && v) return { status: 200, body: versionObj(s, v, true) };
    return error(404, 'NOT_FOUND', `version ${parts[3]} not found`);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text });
      let body: Json = {};
      try {
        body = text ? (JSON.parse(text) as Json) : {};
      } catch {
        body = {};
      }
      const url = new URL(req.url ?? '/', 'http://stub');
      const r = route(req.method ?? 'GET', url, body, req.headers);
      if (lose && lose.method === req.method && lose.path === url.pathname) {
        lose = undefined;
        req.socket.destroy();
        return;
      }
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(r.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    seed: (kind, id, name, config) => void add(kind, id, name, config),
    loseNextAnswer: (method, path) => void (lose = { method, path }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

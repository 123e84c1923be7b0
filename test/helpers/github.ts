/**
 * A stand-in for GitHub's REST API (the issue-comment routes `evalkit ci github` calls), on
 * 127.0.0.1 with a random port under a GitHub Enterprise-like prefix, recording every request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  authorization?: string;
  apiVersion?: string;
  body?: { body?: string };
}

export interface StandInGitHub {
  /** What GITHUB_API_URL is set to: the server plus /api/v3. */
  apiUrl: string;
  requests: RecordedRequest[];
  /** Comments per pull request number. */
  comments: Map<number, Array<{ id: number; body: string; html_url: string }>>;
  /** Answer every request with this status (403: a fork's read-only token). */
  failWith?: number;
  close(): Promise<void>;
}

export async function startGitHub(opts: { repository: string; token: string }): Promise<StandInGitHub> {
  let nextId = 1000;
  const state: StandInGitHub = { apiUrl: '', requests: [], comments: new Map(), close: async () => undefined };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (raw += d));
    req.on('end', () => {
      const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, apiVersion: req.headers['x-github-api-version'] as string | undefined };
      if (raw) rec.body = JSON.parse(raw) as { body?: string };
      state.requests.push(rec);
      const send = (status: number, data: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      if (state.failWith) return send(state.failWith, { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest' });
      if (req.headers.authorization !== `Bearer ${opts.token}`) return send(401, { message: 'Bad credentials' });
      const url = new URL(rec.url, 'http://x');
      const base = `/api/v3/repos/${opts.repository}`;
      let m = new RegExp(`^${base}/issues/(\\d+)/comments$`).exec(url.pathname);
      if (m) {
        const list = state.comments.get(Number(m[1])) ?? [];
        state.comments.set(Number(m[1]), list);
        if (req.method === 'GET') {
          const per = Number(url.searchParams.get('per_page') ?? 30);
          const page = Number(url.searchParams.get('page') ?? 1);
          return send(200, list.slice((page - 1) * per, page * per));
        }
        if (req.method === 'POST') {
          const c = { id: nextId++, body: rec.body?.body ?? '', html_url: '' };
          c.html_url = `https://github.example/${opts.repository}/pull/${m[1]}#issuecomment-${c.id}`;
          list.push(c);
          return send(201, c);
        }
      }
      m = new RegExp(`^${base}/issues/comments/(\\d+)$`).exec(url.pathname);
      if (m && req.method === 'PATCH') {
        for (const list of state.comments.values()) {
          const c = list.find((x) => x.id === Number(m?.[1]));
          if (c) {
            c.body = rec.body?.body ?? '';
            return send(200, c);
          }
        }
        return send(404, { message: 'Not Found' });
      }
      send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

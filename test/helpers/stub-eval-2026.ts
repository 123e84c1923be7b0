// A small in-memory service answering the 2026-02-09 evaluation routes in the shapes of spec
// section 7, until the sandbox serves evaluation set runs: one extractor, classifier or splitter
// with a draft and a 1.0, one evaluation set with its nested items, POST/GET
// /evaluation_set_runs (PENDING -> PROCESSING with numFilesProcessed -> the end status asked), the
// item runs listed by batchId and retrieved one by one.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;
type Type = 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';
const KIND: Record<Type, { entity: string; pre: string; runs: string; runObject: string; runPre: string }> = {
  EXTRACT: { entity: 'extractor', pre: 'ex', runs: 'extract_runs', runObject: 'extract_run', runPre: 'exr' },
  CLASSIFY: { entity: 'classifier', pre: 'cl', runs: 'classify_runs', runObject: 'classify_run', runPre: 'clr' },
  SPLITTER: { entity: 'splitter', pre: 'spl', runs: 'split_runs', runObject: 'split_run', runPre: 'splr' },
};

export interface StubItem {
  id: string;
  fileId: string;
  fileName: string;
  /** 2026-02-09 form. */
  expected: Json;
  /** The run's output; null: the run FAILED. */
  output: Json | null;
}

export interface EvalStubOptions {
  type: Type;
  config: Json;
  items: StubItem[];
  /** How the evaluation set run ends; default PROCESSED. */
  endStatus?: 'PROCESSED' | 'FAILED' | 'CANCELLED';
  /** The metrics the run answers with once ended; null: the member is left out. */
  metrics?: Json | null;
  /** Polls answered PROCESSING before the end; default 2. */
  polls?: number;
  /** Deleted from the set when the run is first polled (in flight). */
  deleteWhileRunning?: string;
}

export interface EvalStub {
  url: string;
  token: string;
  entityId: string;
  setId: string;
  requests: Array<{ method: string; url: string; body: string }>;
  close(): Promise<void>;
}

export async function startEvalStub(o: EvalStubOptions): Promise<EvalStub> {
  const token = 'stub-eval-token';
  const k = KIND[o.type];
  const entityId = `${k.pre}_stub1`;
  const setId = 'ev_stub1';
  const t = '2026-03-01T00:00:00.000Z';
  const items = [...o.items];
  const requests: EvalStub['requests'] = [];
  const versions = [
    { object: `${k.entity}_version`, id: `${k.pre}v_draft`, version: 'draft', description: null, [`${k.entity}Id`]: entityId, createdAt: t, createdBy: null, config: o.config },
    { object: `${k.entity}_version`, id: `${k.pre}v_1`, version: '1.0', description: 'first', [`${k.entity}Id`]: entityId, createdAt: t, createdBy: null, config: o.config },
  ];
  const summary = (v: Json): Json => Object.fromEntries(Object.entries(v).filter(([key]) => key !== 'config'));
  const entity = { object: k.entity, id: entityId, name: 'Stub entity', createdAt: t, updatedAt: t };
  const file = (i: StubItem): Json => ({ object: 'file', id: i.fileId, name: i.fileName, type: 'PDF', parentFileId: null, metadata: { pageCount: 2 }, createdAt: t, updatedAt: t });
  const runs = new Map<string, Json>();
  let evalRun: (Json & { polls: number; itemIds: string[] }) | undefined;

  const list = (data: Json[]): Json => ({ object: 'list', data });
  const err = (status: number, message: string) => ({ status, body: { code: status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST', message, retryable: false } });

  const evalRunJson = (): Json => {
    const r = evalRun!;
    const total = r.itemIds.length;
    const endedNow = r.polls > (o.polls ?? 2);
    const status = r.polls === 0 ? 'PENDING' : endedNow ? (o.endStatus ?? 'PROCESSED') : 'PROCESSING';
    const progress = { type: o.type, numFilesTotal: total, numFilesProcessed: endedNow ? total : Math.min(total, r.polls) };
    const metrics = endedNow ? (o.metrics === null ? undefined : { ...progress, ...(o.metrics ?? {}) }) : progress;
    return {
      object: 'evaluation_set_run', id: r.id, evaluationSetId: setId, entity, entityVersion: summary(r.version as Json),
      ...(metrics ? { metrics } : {}), status, options: {}, createdAt: t, updatedAt: t,
    };
  };

  function route(method: string, url: URL, body: Json, headers: http.IncomingHttpHeaders): { status: number; body: unknown } {
    if (headers.authorization !== `Bearer ${token}`) return err(401, 'invalid API key');
    if (headers['x-extend-api-version'] !== '2026-02-09') return err(400, 'unsupported API version');
    const p = url.pathname.split('/').filter(Boolean);
    if (p[0] === 'evaluation_sets' && p[1] === setId) {
      if (p.length === 2) return { status: 200, body: { object: 'evaluation_set', id: setId, name: 'Stub set', description: '', entity, createdAt: t, updatedAt: t, createdBy: null } };
      if (p.length === 3) return { status: 200, body: list(items.map((i) => ({ object: 'evaluation_set_item', id: i.id, file: file(i), createdBy: null }))) };
      const i = items.find((x) => x.id === p[3]);
      if (!i) return err(404, `evaluation set item ${p[3]} not found`);
      return { status: 200, body: { object: 'evaluation_set_item', id: i.id, evaluationSetId: setId, file: file(i), expectedOutput: i.expected, createdBy: null } };
    }
    if (p[0] === 'evaluation_sets') return err(404, `evaluation set ${p[1]} not found`);
    if (p[0] === `${k.entity}s` && p[1] === entityId && p[2] === 'versions') {
      if (p.length === 3) return { status: 200, body: list(versions.map(summary)) };
      const v = versions.find((x) => x.id === p[3]);
      return v ? { status: 200, body: v } : err(404, 'no such version');
    }
    if (p[0] === 'evaluation_set_runs' && method === 'POST') {
      const ref = (body.entity as Json | undefined)?.version ?? 'draft';
      const version = versions.find((v) => v.version === ref);
      if (!version) return err(400, `no version ${String(ref)}`);
      const itemIds = (body.evaluationSetItemIds as string[] | undefined) ?? items.map((i) => i.id);
      evalRun = { id: 'bpr_stub1', polls: 0, itemIds, version };
      itemIds.forEach((id, n) => {
        const i = items.find((x) => x.id === id)!;
        const runId = `${k.runPre}_${n + 1}`;
        runs.set(runId, {
          object: k.runObject, id: runId, status: i.output ? 'PROCESSED' : 'FAILED', output: i.output,
          failureReason: i.output ? null : 'SIMULATED_FAILURE', failureMessage: i.output ? null : 'the engine failed',
          metadata: { evaluationSetId: setId, evaluationSetItemId: i.id }, [k.entity]: entity, [`${k.entity}Version`]: summary(version),
          reviewed: false, edited: false, parseRunId: null, initialOutput: i.output, reviewedOutput: null, config: o.config,
          ...(o.type === 'EXTRACT' ? { edits: null } : {}),
          file: file(i), ...(o.type === 'EXTRACT' ? { files: [file(i)] } : {}), usage: { credits: 1 }, dashboardUrl: 'x',
          createdAt: t, updatedAt: '2026-03-01T00:00:02.000Z',
        });
      });
      return { status: 200, body: evalRunJson() };
    }
    if (p[0] === 'evaluation_set_runs' && method === 'GET') {
      if (!evalRun || p[1] !== evalRun.id) return err(404, `evaluation set run ${p[1]} not found`);
      evalRun.polls++;
      if (o.deleteWhileRunning && evalRun.polls === 1) items.splice(items.findIndex((i) => i.id === o.deleteWhileRunning), 1);
      return { status: 200, body: evalRunJson() };
    }
    if (p[0] === k.runs && p.length === 1) {
      const batch = url.searchParams.get('batchId');
      const data = batch === evalRun?.id ? [...runs.values()].map((r) => Object.fromEntries(Object.entries(r).filter(([key]) => !['output', 'initialOutput', 'reviewedOutput', 'config', 'edits'].includes(key)))) : [];
      return { status: 200, body: list(data) };
    }
    if (p[0] === k.runs && p.length === 2) {
      const r = runs.get(p[1]);
      return r ? { status: 200, body: r } : err(404, 'no such run');
    }
    return err(404, `no such endpoint ${method} ${url.pathname}`);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', body: text });
      const url = new URL(req.url ?? '/', 'http://stub');
      const r = route(req.method ?? 'GET', url, text ? (JSON.parse(text) as Json) : {}, req.headers);
      res.writeHead(r.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(r.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, token, entityId, setId, requests,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * Record mode: a loopback proxy in front of the real service. Requests are forwarded as sent
 * (method, path, query, body, headers), with the caller's token swapped for the service token
 * (from the environment; never written anywhere). Every processor run the answers show ended
 * (PROCESSED or FAILED: direct runs, runs in lists, the outputs of workflow runs; on API
 * 2026-02-09 the extract, classify and split runs, whose lists carry no outputs, so a run is
 * recorded when it is fetched) is written once to FILE in the replay format of `--engine replay:FILE`:
 *
 *   {"sha256": "...", "fileName": "inv-1.pdf", "processorType": "EXTRACT", "output": {...}, "recordedFrom": {...}}
 *
 * `sha256` is the hash the sandbox matches on: of the uploaded bytes (POST /files/upload, a
 * fileBase64) or of the rawText, when the proxy saw them; otherwise only the file name is
 * known. The processor's id and version are kept under `recordedFrom` only (the replaying
 * sandbox has its own ids). An EXTRACT output of 2026-02-09 is recorded with its citations in the
 * form runs store (2025-04-21's: page counted through a package), so that a replay answers
 * either API version in its own form. A splitter run's derived files (the split documents its
 * splits name by `fileId`) are fetched from the service and written with it under `derivedFiles`
 * ({fileId, name, sha256, contentBase64}), so that a replay can serve them and match runs on them.
 * FILE is rewritten atomically after each new record.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { accessSync, constants as fsConstants, mkdirSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { UsageError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { writeFileAtomic } from '../util/fs.js';
import { parseUpload } from './files.js';
import { hostError } from './hostError.js';
import { DEV_TOKEN_PREFIX } from './auth.js';
import { apiErrorBody } from './current.js';
import { citation20250421, citationFrom20260209 } from './engine/citations.js';

export interface RecorderOptions {
  /** Replay file to write. */
  file: string;
  /** Base URL of the service requests are forwarded to. */
  upstream: string;
  /** The service's API token (from the environment). */
  upstreamToken: string;
  port?: number;
  host?: string;
  /** The token callers send to the proxy (a fresh one by default). */
  token?: string;
  maxBodyBytes?: number;
  log?: (line: string) => void;
}

export interface RecorderHandle {
  url: string;
  port: number;
  /** The token callers send to the proxy (never the service's). */
  token: string;
  /** Records written so far. */
  recorded(): number;
  /** Stops accepting requests and writes the file a last time. */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** Hop-by-hop headers and those the proxy sets itself. */
const DROP_REQUEST = new Set(['host', 'authorization', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'accept-encoding', 'upgrade', 'te', 'trailer', 'proxy-authorization']);
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'content-length', 'transfer-encoding', 'content-encoding', 'upgrade', 'trailer']);

export async function startRecorder(o: RecorderOptions): Promise<RecorderHandle> {
  let upstream: URL;
  try {
    upstream = new URL(o.upstream);
  } catch {
    // Not quoted back: a value pasted by mistake may be a token.
    throw new UsageError('the upstream base URL is not a valid URL (the value is not shown: it may be a secret)', { hint: "pass the service's address, such as https://api.example.com" });
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new UsageError('the upstream base URL must use http or https');
  if (!o.upstreamToken) throw new UsageError('record mode needs the service\'s API token');
  const base = upstream.href.replace(/\/+$/, '');
  const token = o.token ?? `${DEV_TOKEN_PREFIX}${randomBytes(18).toString('base64url')}`;
  const maxBody = o.maxBodyBytes ?? 32 * 1024 * 1024;
  const hashes = { files: new Map<string, string>(), runs: new Map<string, string>() };
  const seen = new Set<string>();
  const lines: string[] = [];
  let writing: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => (writing = writing.then(() => writeFileAtomic(o.file, lines.map((l) => l + '\n'))));

  /** Derived files being fetched: a run request naming one waits for its hash (inspectRequest). */
  const fetching = new Map<string, Promise<void>>();
  const pendingRecords = new Set<Promise<void>>();

  /**
   * A split's derived file as the service serves it: its name and bytes (through its
   * presignedUrl), so that the replaying sandbox can serve it and match runs on it by hash.
   */
  const fetchDerived = async (fileId: string, versionHeaders: Record<string, string>): Promise<DerivedFile | undefined> => {
    try {
      const meta = await fetch(`${base}/files/${encodeURIComponent(fileId)}`, { headers: { ...versionHeaders, authorization: `Bearer ${o.upstreamToken}` }, redirect: 'manual' });
      if (!meta.ok) return undefined;
      const doc = (await meta.json()) as unknown;
      const f = isPlainObject(doc) && isPlainObject(doc.file) ? doc.file : doc;
      if (!isPlainObject(f) || typeof f.name !== 'string' || typeof f.presignedUrl !== 'string') return undefined;
      // A presigned URL carries its own authorization: the service token is not sent with it.
      const content = await fetch(new URL(f.presignedUrl, `${base}/`), { redirect: 'follow' });
      if (!content.ok) return undefined;
      const bytes = Buffer.from(await content.arrayBuffer());
      if (bytes.length > maxBody) return undefined;
      const hash = sha(bytes);
      hashes.files.set(fileId, hash);
      return { fileId, name: f.name, sha256: hash, contentBase64: bytes.toString('base64') };
    } catch {
      return undefined;
    }
  };

  const recordRun = (run: unknown, versionHeaders: Record<string, string>): void => {
    if (!isPlainObject(run) || typeof run.id !== 'string' || seen.has(run.id)) return;
    if (run.status !== 'PROCESSED' && run.status !== 'FAILED') return;
    const files = Array.isArray(run.files) ? (run.files as Json[]) : [];
    const fileId = typeof files[0]?.id === 'string' ? files[0].id : undefined;
    const fileName = typeof files[0]?.name === 'string' ? files[0].name : undefined;
    const sha256 = hashes.runs.get(run.id) ?? (fileId ? hashes.files.get(fileId) : undefined);
    if (!sha256 && !fileName) return; // nothing a replay could match on
    seen.add(run.id);
    const rec: Json = { ...(sha256 ? { sha256 } : {}), ...(fileName ? { fileName } : {}), ...(typeof run.type === 'string' ? { processorType: run.type } : {}) };
    if (run.status === 'PROCESSED' && isPlainObject(run.output)) rec.output = run.output;
    else {
      rec.failureReason = typeof run.failureReason === 'string' && run.failureReason ? run.failureReason : 'FAILED';
      if (typeof run.failureMessage === 'string' && run.failureMessage) rec.failureMessage = run.failureMessage;
    }
    rec.recordedFrom = { runId: run.id, processorId: run.processorId, processorVersionId: run.processorVersionId };
    const write = (): void => {
      lines.push(JSON.stringify(rec));
      save().catch((e: unknown) => o.log?.(`sandbox record: cannot write ${o.file}: ${(e as Error).message}`));
    };
    // A split's derived files (the split documents) are recorded with the run: the replaying
    // sandbox has no other way to serve them, nor to match a run on one of them.
    const derivedIds = run.type === 'SPLITTER' && isPlainObject(rec.output) ? splitFileIds(rec.output) : [];
    if (!derivedIds.length) return write();
    const fetched = derivedIds.map((id) => fetchDerived(id, versionHeaders));
    const done = Promise.all(fetched).then((files) => {
      const got = files.filter((f): f is DerivedFile => f !== undefined);
      const missing = derivedIds.filter((id) => !got.some((f) => f.fileId === id));
      if (missing.length) o.log?.(`sandbox record: could not fetch the derived file(s) ${missing.join(', ')} of split run ${String(run.id)}; a replay serves its own text files for them`);
      rec.derivedFiles = got;
      write();
    });
    derivedIds.forEach((id, i) => fetching.set(id, fetched[i].then(() => undefined)));
    pendingRecords.add(done);
    void done.finally(() => {
      pendingRecords.delete(done);
      for (const id of derivedIds) fetching.delete(id);
    });
  };

  /** What the request tells about content hashes, before it is forwarded. */
  const inspectRequest = async (method: string, path: string, req: IncomingMessage, body: Buffer): Promise<{ sha256?: string }> => {
    if (method !== 'POST' || body.length === 0) return {};
    if (path === '/files/upload') {
      try {
        return { sha256: sha((await parseUpload(req.headers['content-type'], body)).bytes) };
      } catch {
        return {};
      }
    }
    if (path !== '/processor_runs' && !RUN_ROUTES.has(path)) return {};
    try {
      const doc: unknown = JSON.parse(body.toString('utf8'));
      if (!isPlainObject(doc)) return {};
      if (typeof doc.rawText === 'string') return { sha256: sha(Buffer.from(doc.rawText, 'utf8')) };
      const f = doc.file;
      if (isPlainObject(f) && typeof f.fileBase64 === 'string') return { sha256: sha(Buffer.from(f.fileBase64, 'base64')) };
      // A split's derived file still being fetched (record()): its hash is known once it is.
      const fileId = isPlainObject(f) ? (typeof f.fileId === 'string' ? f.fileId : typeof f.id === 'string' ? f.id : undefined) : undefined;
      if (fileId && fetching.has(fileId)) await fetching.get(fileId);
      if (isPlainObject(f) && typeof f.fileId === 'string') return { sha256: hashes.files.get(f.fileId) };
      // 2026-02-09: `file: {text, name?}` or `file: {id}`.
      if (isPlainObject(f) && typeof f.text === 'string') return { sha256: sha(Buffer.from(f.text, 'utf8')) };
      if (isPlainObject(f) && typeof f.id === 'string') return { sha256: hashes.files.get(f.id) };
    } catch {
      // not JSON: the service answers it
    }
    return {};
  };

  const inspectResponse = (path: string, known: { sha256?: string }, text: string, versionHeaders: Record<string, string>): void => {
    const record = (run: unknown): void => recordRun(run, versionHeaders);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return;
    }
    if (!isPlainObject(doc)) return;
    if (known.sha256 && path === '/files/upload' && isPlainObject(doc.file) && typeof doc.file.id === 'string') hashes.files.set(doc.file.id, known.sha256);
    // 2026-02-09: bare objects (a File, a run) and lists of them.
    if (known.sha256 && path === '/files/upload' && doc.object === 'file' && typeof doc.id === 'string') hashes.files.set(doc.id, known.sha256);
    if (known.sha256 && RUN_ROUTES.has(path) && typeof doc.object === 'string' && doc.object in RUN_KINDS && typeof doc.id === 'string') hashes.runs.set(doc.id, known.sha256);
    record(legacyRun(doc));
    if (doc.object === 'list' && Array.isArray(doc.data)) for (const r of doc.data) record(legacyRun(r));
    if (known.sha256 && path === '/processor_runs' && isPlainObject(doc.processorRun) && typeof doc.processorRun.id === 'string') hashes.runs.set(doc.processorRun.id, known.sha256);
    record(doc.processorRun);
    if (Array.isArray(doc.processorRuns)) doc.processorRuns.forEach(record);
    const wrs = [doc.workflowRun, ...(Array.isArray(doc.workflowRuns) ? doc.workflowRuns : [])];
    for (const wr of wrs) if (isPlainObject(wr) && Array.isArray(wr.outputs)) wr.outputs.forEach((out) => record(isPlainObject(out) && !out.files ? { ...out, files: wr.files } : out));
  };

  const answer = (res: ServerResponse, status: number, error: string, headers: Record<string, string> = {}, current = false): void => {
    // A 2026-02-09 caller gets the ApiError body that version answers errors with.
    const text = current ? apiErrorBody(status, error) : JSON.stringify({ success: false, error });
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const path = url.split('?')[0].replace(/^\/v1(?=\/|$)/, '') || '/';
    if (path === '/healthz' && method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"status":"ok","mode":"record"}');
      return;
    }
    const current = isCurrentCaller(req);
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || m[1].length !== token.length || !timingSafeEqual(Buffer.from(m[1]), Buffer.from(token))) {
      req.resume();
      return answer(res, 401, 'missing or invalid API token for the recording proxy', { 'www-authenticate': 'Bearer' }, current);
    }
    const body = await readBody(req, maxBody);
    if (!body) return answer(res, 413, `request body is larger than the proxy's limit of ${maxBody} bytes`, { connection: 'close' }, current);
    const known = await inspectRequest(method, path, req, body);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!DROP_REQUEST.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    headers.authorization = `Bearer ${o.upstreamToken}`;
    let upstreamRes: Response;
    try {
      upstreamRes = await fetch(base + url, { method, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body, redirect: 'manual' });
    } catch (e) {
      return answer(res, 502, `the service at ${base} did not answer: ${(e as Error).message}`.replaceAll(o.upstreamToken, '***'), {}, current);
    }
    const bytes = Buffer.from(await upstreamRes.arrayBuffer());
    const out: Record<string, string> = {};
    upstreamRes.headers.forEach((v, k) => {
      if (!DROP_RESPONSE.has(k)) out[k] = v;
    });
    res.writeHead(upstreamRes.status, { ...out, 'content-length': bytes.length });
    res.end(bytes);
    const versionHeaders: Record<string, string> = {};
    for (const k of VERSION_HEADERS) if (typeof headers[k] === 'string') versionHeaders[k] = headers[k];
    if (upstreamRes.ok && (upstreamRes.headers.get('content-type') ?? '').includes('json')) inspectResponse(path, known, bytes.toString('utf8'), versionHeaders);
  };

  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      o.log?.(`sandbox record: unexpected error: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) answer(res, 500, 'internal error of the recording proxy');
      else res.destroy();
    });
  });
  const host = o.host ?? '127.0.0.1';
  // The file is checked and written (empty) before listening: a path that cannot be written stops here, exit 2.
  checkRecordPath(o.file);
  try {
    await save();
  } catch (e) {
    writing = Promise.resolve();
    throw recordPathError(o.file, (e as Error).message);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new UsageError(`port ${o.port ?? 0} on ${host} is already in use`) : hostError(e, host) ?? e));
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    port,
    token,
    recorded: () => lines.length,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })
        .then(() => Promise.all([...pendingRecords]))
        .then(() => save())),
  };
}

function recordPathError(file: string, why: string): UsageError {
  return new UsageError(`cannot write the record file ${file}: ${why}`, { hint: 'pass --record a path in a folder you can write, such as --record recorded.jsonl' });
}

/**
 * Throws a usage error naming the cause when `file` cannot be written: a file where a folder
 * should be, a folder that cannot be created (one by one: a recursive mkdir under /proc never
 * returns), a folder not writable.
 */
function checkRecordPath(file: string): void {
  const target = path.resolve(file);
  try {
    if (statSync(target).isDirectory()) throw recordPathError(file, 'it is a folder');
  } catch (e) {
    if (e instanceof UsageError) throw e;
  }
  const dir = path.dirname(target);
  const missing: string[] = [];
  let d = dir;
  for (;;) {
    try {
      if (!statSync(d).isDirectory()) throw recordPathError(file, `${d} is a file, not a folder`);
      break;
    } catch (e) {
      if (e instanceof UsageError) throw e;
      const up = path.dirname(d);
      if (up === d) throw recordPathError(file, (e as Error).message);
      missing.unshift(d);
      d = up;
    }
  }
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw recordPathError(file, `cannot create the folder ${m} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  try {
    accessSync(dir, fsConstants.W_OK);
  } catch {
    throw recordPathError(file, `the folder ${dir} is not writable`);
  }
}

function sha(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** The whole body, or undefined when it exceeds `max`. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) over = true;
      else if (!over) chunks.push(c);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A split document of a recorded splitter run: the replay format's `derivedFiles` entries. */
interface DerivedFile {
  /** The service's id of the file, as the split's `fileId` names it. */
  fileId: string;
  name: string;
  sha256: string;
  contentBase64: string;
}

/** The API version headers of a request, sent again when the proxy fetches a derived file. */
const VERSION_HEADERS = ['x-extend-api-version', 'x-service-api-version'];

/** The `fileId`s of a splitter output's splits (either term of the list). */
function splitFileIds(output: Json): string[] {
  const splits = Array.isArray(output.splits) ? output.splits : Array.isArray(output.subDocumentClassifications) ? output.subDocumentClassifications : [];
  const ids = splits.map((s: unknown) => (isPlainObject(s) && typeof s.fileId === 'string' && s.fileId ? s.fileId : undefined));
  return [...new Set(ids.filter((id): id is string => id !== undefined))];
}

/** The 2026-02-09 run routes (create and sync) whose request names the run's input. */
const RUN_ROUTES = new Set(['/extract_runs', '/classify_runs', '/split_runs', '/extract', '/classify', '/split']);

/** A 2026-02-09 run's `object`: its processor type and the member naming its processor. */
const RUN_KINDS: Record<string, { type: string; noun: string }> = {
  extract_run: { type: 'EXTRACT', noun: 'extractor' },
  classify_run: { type: 'CLASSIFY', noun: 'classifier' },
  split_run: { type: 'SPLITTER', noun: 'splitter' },
};

/** A caller of API version 2026-02-09 or later (its error bodies are ApiError). */
function isCurrentCaller(req: IncomingMessage): boolean {
  const v = req.headers['x-extend-api-version'];
  return typeof v === 'string' && v.trim() >= '2026-02-09';
}

/**
 * A 2026-02-09 run as record() reads a 2025-04-21 one (`files`, `type`, `processorId`, the output
 * as runs store it); undefined for anything else, and for a run summary (lists carry no output).
 */
function legacyRun(doc: unknown): Json | undefined {
  if (!isPlainObject(doc) || typeof doc.object !== 'string' || !Object.hasOwn(RUN_KINDS, doc.object)) return undefined;
  if (!Object.hasOwn(doc, 'output')) return undefined;
  const kind = RUN_KINDS[doc.object];
  const files = Array.isArray(doc.files) && doc.files.length ? (doc.files as unknown[]) : isPlainObject(doc.file) ? [doc.file] : [];
  const processor = doc[kind.noun];
  const version = doc[`${kind.noun}Version`];
  return {
    id: doc.id,
    status: doc.status,
    type: kind.type,
    files,
    output: kind.type === 'EXTRACT' ? storedExtractOutput(doc.output, files) : doc.output,
    failureReason: doc.failureReason,
    failureMessage: doc.failureMessage,
    processorId: isPlainObject(processor) ? processor.id : undefined,
    processorVersionId: isPlainObject(version) ? version.id : undefined,
  };
}

/** An EXTRACT output's 2026-02-09 citations in the stored form: page counted through the run's files. */
function storedExtractOutput(output: unknown, files: unknown[]): unknown {
  if (!isPlainObject(output) || !isPlainObject(output.metadata)) return output;
  const offsets = new Map<string, number>();
  let first = 0;
  for (const f of files) {
    if (!isPlainObject(f) || typeof f.id !== 'string') continue;
    offsets.set(f.id, first);
    const count = Number(isPlainObject(f.metadata) ? f.metadata.pageCount : undefined);
    first += Number.isFinite(count) && count > 0 ? count : 1;
  }
  const metadata = Object.entries(output.metadata).map(([path, entry]): [string, unknown] => {
    if (!isPlainObject(entry) || !Array.isArray(entry.citations)) return [path, entry];
    const citations = entry.citations.map((c: unknown) => {
      const n = citationFrom20260209(c, isPlainObject(c) && typeof c.fileId === 'string' ? (offsets.get(c.fileId) ?? 0) : 0);
      return n ? citation20250421(n) : c;
    });
    return [path, { ...entry, citations }];
  });
  // fromEntries: field paths are the user's keys (`__proto__` included), kept as own members.
  return { ...output, metadata: Object.fromEntries(metadata) };
}

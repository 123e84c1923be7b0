/**
 * Record and replay of splitter runs: the splits name the service's derived files (the split
 * documents). Record mode fetches them into the recording (`derivedFiles`), and the replaying
 * sandbox registers them as its own files, so that they can be retrieved and run on offline. An
 * older recording (no `derivedFiles`) still replays: the splits get text files of the replaying
 * sandbox, and a run on one fails with a message that says why.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startRecorder } from '../../src/sandbox/record.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { INVOICE_CONFIG, SPLITTER_CONFIG } from './helpers.js';

type Json = Record<string, unknown>;

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-replay-splits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { type: _s, ...SPLIT_26 } = SPLITTER_CONFIG;
const { type: _e, ...EXTRACT_26 } = INVOICE_CONFIG;
const PAGES = ['Invoice number: S-1\nTotal: 10', 'Invoice number: S-1 continued\nTotal: 10', 'Receipt\nTotal: 3'];
const BYTES = PAGES.join('\f');

function api(url: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'x-extend-api-version': '2026-02-09' };
  return {
    async call<T = Json>(method: string, p: string, body?: unknown): Promise<{ status: number; body: T }> {
      const r = await fetch(url + p, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as T };
    },
    async upload(name: string, text: string): Promise<string> {
      const form = new FormData();
      form.append('file', new File([text], name));
      const r = await fetch(`${url}/files/upload`, { method: 'POST', headers, body: form });
      expect(r.status).toBe(200);
      return ((await r.json()) as Json).id as string;
    },
  };
}

type Api = ReturnType<typeof api>;

async function setUp(a: Api): Promise<{ splitter: string; extractor: string; fileId: string }> {
  const sp = await a.call('POST', '/splitters', { name: 'docs', config: SPLIT_26 });
  const ex = await a.call('POST', '/extractors', { name: 'inv', config: EXTRACT_26 });
  expect([sp.status, ex.status]).toEqual([200, 200]);
  return { splitter: sp.body.id as string, extractor: ex.body.id as string, fileId: await a.upload('bundle.txt', BYTES) };
}

const splitsOf = (run: Json): Json[] => (run.output as { splits: Json[] }).splits;
const noFileIds = (o: unknown): string => JSON.stringify(o).replace(/"fileId":"[^"]*",?/g, '');

describe('replayed splitter runs: the split documents offline', () => {
  test('record mode records the derived files; the replay serves them and runs on them replay', async () => {
    const service = await startSandbox({ port: 0, engineDelayMs: 2, engine: 'simulate:5,0' });
    const file = path.join(dir, 'recorded.jsonl');
    const rec = await startRecorder({ file, upstream: service.url, upstreamToken: service.token });
    let recordedSplit: Json;
    let recordedExtract: Json;
    try {
      const a = api(rec.url, rec.token);
      const { splitter, extractor, fileId } = await setUp(a);
      const split = await a.call('POST', '/split', { splitter: { id: splitter }, file: { id: fileId } });
      expect(split.status).toBe(200);
      recordedSplit = split.body;
      const derivedId = splitsOf(split.body)[0].fileId as string;
      expect(derivedId).toEqual(expect.any(String));
      const ext = await a.call('POST', '/extract', { extractor: { id: extractor }, file: { id: derivedId } });
      expect(ext.status).toBe(200);
      recordedExtract = ext.body;
    } finally {
      await rec.close();
      await service.close();
    }

    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    const splitLine = lines.find((l) => l.processorType === 'SPLITTER') as Json;
    const derived = splitLine.derivedFiles as Json[];
    expect(derived.map((d) => d.fileId)).toEqual(splitsOf(recordedSplit).map((s) => s.fileId));
    expect(Buffer.from(derived[0].contentBase64 as string, 'base64').toString('utf8')).toContain('Invoice number: S-1');
    // The run on the split is recorded with the split's content hash.
    expect(lines.find((l) => l.processorType === 'EXTRACT')).toMatchObject({ sha256: derived[0].sha256 });

    const replaying = await startSandbox({ port: 0, engineDelayMs: 2, engine: `replay:${file}` });
    try {
      const a = api(replaying.url, replaying.token);
      const { splitter, extractor, fileId } = await setUp(a);
      const split = await a.call('POST', '/split', { splitter: { id: splitter }, file: { id: fileId } });
      expect(split.body.status).toBe('PROCESSED');
      expect(noFileIds(splitsOf(split.body))).toBe(noFileIds(splitsOf(recordedSplit)));
      const local = splitsOf(split.body)[0].fileId as string;
      expect(local).not.toBe(derived[0].fileId);
      const got = await a.call('GET', `/files/${local}`);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id: local, name: derived[0].name, parentFileId: fileId });
      const ext = await a.call('POST', '/extract', { extractor: { id: extractor }, file: { id: local } });
      expect(ext.body.status).toBe('PROCESSED');
      expect(noFileIds(ext.body.output)).toBe(noFileIds(recordedExtract.output));
      // Replaying the split again makes new files (ids are never shared between runs).
      const again = await a.call('POST', '/split', { splitter: { id: splitter }, file: { id: fileId } });
      expect(splitsOf(again.body)[0].fileId).not.toBe(local);
    } finally {
      await replaying.close();
    }

    // A recording made before derived files were recorded: the splits still get files. (The
    // service's split documents are cut PDFs, not the sandbox's text files: the run on the split
    // is recorded under another hash and name than the text file a replay rebuilds.)
    const old = path.join(dir, 'old.jsonl');
    const asBefore = (l: Json): Json => {
      const { derivedFiles: _d, ...rest } = l;
      return rest.processorType === 'EXTRACT' ? { ...rest, sha256: 'ab'.repeat(32), fileName: 'bundle_split_1.pdf' } : rest;
    };
    writeFileSync(old, lines.map((l) => JSON.stringify(asBefore(l))).join('\n') + '\n');
    const replayingOld = await startSandbox({ port: 0, engineDelayMs: 2, engine: `replay:${old}` });
    try {
      const a = api(replayingOld.url, replayingOld.token);
      const { splitter, extractor, fileId } = await setUp(a);
      const split = await a.call('POST', '/split', { splitter: { id: splitter }, file: { id: fileId } });
      expect(split.body.status).toBe('PROCESSED');
      const local = splitsOf(split.body)[0].fileId as string;
      expect(local).not.toBe(derived[0].fileId);
      const got = await a.call('GET', `/files/${local}`);
      expect(got.status).toBe(200);
      // The run's sandbox label says the splits' files were rebuilt (shown on the 2025-04-21 run).
      const legacy = await fetch(`${replayingOld.url}/processor_runs/${split.body.id as string}`, { headers: { authorization: `Bearer ${replayingOld.token}`, 'x-service-api-version': '2025-04-21' } });
      const label = ((await legacy.json()) as { processorRun: { metadata: { evalkitSandbox: Json } } }).processorRun.metadata.evalkitSandbox;
      expect(label).toMatchObject({ engine: 'replay', derivedFiles: expect.stringContaining('the recording has no derivedFiles for') });
      const ext = await a.call('POST', '/extract', { extractor: { id: extractor }, file: { id: local } });
      expect(ext.body).toMatchObject({ status: 'FAILED', failureReason: 'REPLAY_NOT_FOUND' });
      expect(ext.body.failureMessage).toMatch(new RegExp(`split document of file ${fileId}: .*derivedFiles.*record again`));
    } finally {
      await replayingOld.close();
    }
  });
});

describe('the replay format\'s derivedFiles', () => {
  test('are read with the record; a malformed entry is refused at its pointer', async () => {
    const { parseReplay } = await import('../../src/sandbox/engine/replay.js');
    const ok = parseReplay(`${JSON.stringify({ sha256: 'ab'.repeat(32), processorType: 'SPLITTER', output: { splits: [] }, derivedFiles: [{ fileId: 'file_1', name: 'a.txt', sha256: 'x', contentBase64: Buffer.from('hi').toString('base64') }] })}\n`, 'r.jsonl');
    expect(ok[0].derivedFiles).toEqual([{ fileId: 'file_1', name: 'a.txt', bytes: Buffer.from('hi') }]);
    expect(() => parseReplay(`${JSON.stringify({ fileName: 'a', output: {}, derivedFiles: {} })}\n`, 'r.jsonl')).toThrow(/derivedFiles must be an array/);
    try {
      parseReplay(`${JSON.stringify({ fileName: 'a', output: {}, derivedFiles: [{ fileId: 'f', name: 'n' }] })}\n`, 'r.jsonl');
      expect.unreachable();
    } catch (e) {
      expect((e as { location: { pointer: string } }).location.pointer).toBe('/derivedFiles/0/contentBase64');
    }
  });
});

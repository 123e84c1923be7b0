import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ExtendClient } from 'extend-ai';
import { ExtendClient as ExtendClient1, type Extend } from 'extend-ai-1';
import { startRecorder } from '../../src/sandbox/record.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { INVOICE_CONFIG } from './helpers.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('record mode (a second sandbox stands in for the real service)', () => {
  test('forwards with the service token, records ended runs in the replay format, and a replaying sandbox answers the same outputs', async () => {
    const service = await startSandbox({ port: 0, engineDelayMs: 2, engine: 'simulate:3,0.5' });
    const file = path.join(dir, 'recorded.jsonl');
    const rec = await startRecorder({ file, upstream: service.url, upstreamToken: service.token });
    try {
      expect(rec.token).not.toBe(service.token);
      const client = new ExtendClient({ baseUrl: rec.url, token: rec.token });
      const p = await client.processor.create({ name: 'inv', type: 'EXTRACT', config: INVOICE_CONFIG as never });
      const bytes = 'Invoice number: R-1\nTotal: 10\n';
      const up = await client.file.upload(new File([bytes], 'r-1.txt'));
      const byFile = await client.processorRun.create({ processorId: p.processor.id, file: { fileId: up.file.id } });
      const text = 'Invoice number: R-2\nTotal: 20\n';
      const byText = await client.processorRun.create({ processorId: p.processor.id, rawText: text, sync: true });
      await service.idle();
      const polled = await client.processorRun.get(byFile.processorRun.id);
      await client.processorRun.list();
      // The caller's token is not the service's: a wrong token is refused by the proxy itself.
      const wrong = await fetch(`${rec.url}/processors`, { headers: { authorization: `Bearer ${service.token}` } });
      expect(wrong.status).toBe(401);
      await rec.close();

      const written = readFileSync(file, 'utf8');
      expect(written).not.toContain(service.token);
      expect(written).not.toContain(rec.token);
      const lines = written.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(2);
      expect(lines).toContainEqual(expect.objectContaining({ sha256: sha(bytes), fileName: 'r-1.txt', processorType: 'EXTRACT', output: polled.processorRun.output }));
      expect(lines).toContainEqual(expect.objectContaining({ sha256: sha(text), processorType: 'EXTRACT', output: byText.processorRun.output }));

      const replaying = await startSandbox({ port: 0, engineDelayMs: 2, engine: `replay:${file}` });
      try {
        const c2 = new ExtendClient({ baseUrl: replaying.url, token: replaying.token });
        const p2 = await c2.processor.create({ name: 'inv', type: 'EXTRACT', config: INVOICE_CONFIG as never });
        const up2 = await c2.file.upload(new File([bytes], 'renamed.txt'));
        const again = await c2.processorRun.create({ processorId: p2.processor.id, file: { fileId: up2.file.id }, sync: true });
        expect(JSON.stringify(again.processorRun.output)).toBe(JSON.stringify(polled.processorRun.output));
        const againText = await c2.processorRun.create({ processorId: p2.processor.id, rawText: text, sync: true });
        expect(againText.processorRun.output).toEqual(byText.processorRun.output);
      } finally {
        await replaying.close();
      }
    } finally {
      await rec.close();
      await service.close();
    }
  });

  test('on API 2026-02-09 (SDK 1.x): runs fetched or run sync are recorded (lists carry no output), with the stored citation form; a replaying sandbox answers the same outputs', async () => {
    const service = await startSandbox({ port: 0, engineDelayMs: 2, engine: 'simulate:3,0.5' });
    const file = path.join(dir, 'recorded-2026.jsonl');
    const rec = await startRecorder({ file, upstream: service.url, upstreamToken: service.token });
    const { type: _t, ...config } = INVOICE_CONFIG;
    try {
      const client = new ExtendClient1({ baseUrl: rec.url, token: rec.token });
      const ex = await client.extractors.create({ name: 'inv', config: config as Extend.ExtractConfigJson });
      const bytes = 'Invoice number: R-1\nTotal: 10\n';
      const up = await client.files.upload(new File([bytes], 'r-1.txt'), {});
      const run = await client.extractRuns.create({ extractor: { id: ex.id }, file: { id: up.id } });
      const text = 'Invoice number: R-2\nTotal: 20\n';
      const sync = await client.extract({ extractor: { id: ex.id }, file: { text, name: 'r-2.txt' } });
      await service.idle();
      await client.extractRuns.list();
      // The sync run; the async one is listed without its output, not yet recorded.
      expect(rec.recorded()).toBe(1);
      const fetched = await client.extractRuns.retrieve(run.id);
      // The proxy's own errors answer a 2026-02-09 caller in its ApiError form.
      const wrong = await fetch(`${rec.url}/extractors`, { headers: { authorization: `Bearer ${service.token}`, 'x-extend-api-version': '2026-02-09' } });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ code: expect.any(String), message: expect.stringContaining('recording proxy') });
      await rec.close();

      const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(2);
      expect(lines).toContainEqual(expect.objectContaining({ sha256: sha(bytes), fileName: 'r-1.txt', processorType: 'EXTRACT', recordedFrom: expect.objectContaining({ runId: run.id, processorId: ex.id }) }));
      expect(lines).toContainEqual(expect.objectContaining({ sha256: sha(text), processorType: 'EXTRACT' }));
      // Stored form: a citation's page is a number (2026-02-09's {number, width, height} turned back).
      const cited = lines.flatMap((l) => Object.values(((l.output as { metadata?: Record<string, { citations?: Array<{ page: unknown }> }> }).metadata ?? {})).flatMap((m) => m.citations ?? []));
      for (const c of cited) expect(typeof c.page).toBe('number');

      const replaying = await startSandbox({ port: 0, engineDelayMs: 2, engine: `replay:${file}` });
      try {
        const c2 = new ExtendClient1({ baseUrl: replaying.url, token: replaying.token });
        const ex2 = await c2.extractors.create({ name: 'inv', config: config as Extend.ExtractConfigJson });
        const up2 = await c2.files.upload(new File([bytes], 'renamed.txt'), {});
        const again = await c2.extract({ extractor: { id: ex2.id }, file: { id: up2.id } });
        // The same output, citations included, but for the file id inside them (another file here).
        const noFileIds = (o: unknown): string => JSON.stringify(o).replace(/"fileId":"[^"]*",?/g, '');
        expect(noFileIds(again.output)).toBe(noFileIds(fetched.output));
        const againText = await c2.extract({ extractor: { id: ex2.id }, file: { text } });
        expect(noFileIds(againText.output)).toBe(noFileIds(sync.output));
      } finally {
        await replaying.close();
      }
    } finally {
      await rec.close();
      await service.close();
    }
  });

  test('an unreachable service is a 502 that does not show the token', async () => {
    const rec = await startRecorder({ file: path.join(dir, 'none.jsonl'), upstream: 'http://127.0.0.1:9', upstreamToken: 'sk_secret_value_123' });
    try {
      const r = await fetch(`${rec.url}/processors`, { headers: { authorization: `Bearer ${rec.token}` } });
      expect(r.status).toBe(502);
      const body = (await r.json()) as { success: boolean; error: string };
      expect(body.success).toBe(false);
      expect(body.error).toMatch(/did not answer/);
      expect(body.error).not.toContain('sk_secret_value_123');
    } finally {
      await rec.close();
    }
  });
});

import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ExtendClient } from 'extend-ai';
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

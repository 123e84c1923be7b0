import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, createProcessor, settled, start, uploadText } from './helpers.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-replay-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An export as `evalkit eval run` writes it (schemas/export.schema.json), recorded against the real service. */
const OUTPUT = { value: { invoice_number: 'INV-1', total: 99.5, paid: null, amount_due: { amount: 99.5, iso_4217_currency_code: 'EUR' }, line_items: [] }, metadata: { total: { ocrConfidence: 0.97 } } };
const EXPORT = {
  format: 'evalkit-export/1',
  processor: { id: 'dp_real_123', name: 'Invoices', type: 'EXTRACT', version: '1.0', config: INVOICE_CONFIG },
  options: { fuzzyMatchFields: [], excludeFields: [] },
  source: { evaluationSetId: 'ev_real', exportedAt: '2026-11-01T00:00:00.000Z' },
  items: [
    { id: 'evi_1', fileId: 'file_real_1', fileName: 'inv-1.txt', expectedOutput: { value: {} }, output: OUTPUT, status: 'PROCESSED', runId: 'dpr_real_1' },
    { id: 'evi_2', fileId: 'file_real_2', fileName: 'broken.txt', expectedOutput: { value: {} }, output: null, status: 'FAILED', failureReason: 'CORRUPT_FILE', failureMessage: 'could not read' },
    { id: 'evi_3', fileId: 'file_real_3', expectedOutput: { value: {} }, output: OUTPUT, status: 'PROCESSED' },
  ],
};

describe('--engine replay:FILE with an evaluation export', () => {
  test.each([
    ['JSON', 'export.json', JSON.stringify(EXPORT, null, 2)],
    ['JSONL', 'export.jsonl', [JSON.stringify({ ...EXPORT, items: undefined }), ...EXPORT.items.map((i) => JSON.stringify(i))].join('\n') + '\n'],
  ])('%s export: outputs by file name, byte for byte; failures replayed; other names and types not found', async (_form, name, text) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    const t = await start({ engine: `replay:${file}` });
    try {
      const extract = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
      const run = async (processorId: string, fileName: string) => {
        const fileId = await uploadText(t, fileName, 'whatever the bytes');
        const r = await t.call<{ processorRun: { id: string } }>('POST', '/processor_runs', { body: { processorId, file: { fileId } } });
        return settled(t, r.body.processorRun.id);
      };
      const ok = await run(extract, 'inv-1.txt');
      expect(ok.status).toBe('PROCESSED');
      expect(JSON.stringify(ok.output)).toBe(JSON.stringify(OUTPUT));
      expect(ok.metadata).toMatchObject({ evalkitSandbox: { engine: 'replay', replayFile: name, replayItem: 0 } });
      expect(await run(extract, 'broken.txt')).toMatchObject({ status: 'FAILED', failureReason: 'CORRUPT_FILE', failureMessage: 'could not read' });
      expect(await run(extract, 'other.txt')).toMatchObject({ status: 'FAILED', failureReason: 'REPLAY_NOT_FOUND' });
      const classify = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG);
      expect(await run(classify, 'inv-1.txt')).toMatchObject({ status: 'FAILED', failureReason: 'REPLAY_NOT_FOUND' });
    } finally {
      await t.close();
    }
  });

  test('an invalid export stops the start, naming the file and pointer', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...EXPORT, options: { fuzzyMatchFields: 'x' } }));
    const e = (await start({ engine: `replay:${file}` }).catch((x: unknown) => x)) as { message: string; location?: { file?: string } };
    expect(e.message).toMatch(/not a valid evaluation export/);
    expect(e.location?.file).toBe(file);
  });

  test('an export without any file name is refused (nothing could match)', async () => {
    const file = path.join(dir, 'nameless.json');
    writeFileSync(file, JSON.stringify({ ...EXPORT, items: [EXPORT.items[2]] }));
    await expect(start({ engine: `replay:${file}` })).rejects.toThrow(/names no file for any item/);
  });
});

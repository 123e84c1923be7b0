import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { defaultExportPath, writeExport } from '../../src/eval/index.js';
import type { EvaluationExport, ExportItem } from '../../src/metrics/index.js';
import { loadExport } from '../../src/report/index.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-write-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = fc.jsonValue({ maxDepth: 3 });
const item: fc.Arbitrary<ExportItem> = fc.record(
  {
    id: fc.string({ minLength: 1, maxLength: 12 }),
    fileId: fc.string({ minLength: 1, maxLength: 12 }),
    fileName: fc.string(),
    expectedOutput: fc.dictionary(fc.string(), json),
    output: fc.option(fc.dictionary(fc.string(), json), { nil: null }),
    status: fc.constantFrom('PENDING', 'PROCESSING', 'PROCESSED', 'FAILED', 'CANCELLED' as const),
    runId: fc.string({ minLength: 1 }),
    failureReason: fc.string(),
    failureMessage: fc.string(),
  },
  { requiredKeys: ['id', 'fileId', 'expectedOutput', 'output', 'status'] },
);
const exportArb: fc.Arbitrary<EvaluationExport> = fc.record({
  format: fc.constant('evalkit-export/1' as const),
  processor: fc.record({ id: fc.string({ minLength: 1 }), name: fc.string(), type: fc.constantFrom('EXTRACT', 'CLASSIFY', 'SPLITTER' as const), version: fc.constantFrom('draft', '1.0', '2.3'), config: fc.dictionary(fc.string(), json) }),
  options: fc.record({ fuzzyMatchFields: fc.array(fc.string()), excludeFields: fc.array(fc.string()) }),
  items: fc.array(item, { maxLength: 5 }),
});

// JSON.parse(JSON.stringify(x)) drops -0 and other values JSON cannot hold the same way.
const viaJson = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

describe('writeExport', () => {
  test('JSON and JSON Lines both round-trip through the report loader', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(exportArb, async (exp) => {
        for (const ext of ['json', 'jsonl']) {
          const file = path.join(dir, `p${n++}.${ext}`);
          const w = await writeExport(file, exp);
          expect(w.format).toBe(ext);
          expect(w.bytes).toBe(readFileSync(file).length);
          expect(await loadExport(file)).toEqual(viaJson(exp));
        }
      }),
      { numRuns: 25 },
    );
  });

  test('a "__proto__" key in a document is kept like any other key', async () => {
    const exp = JSON.parse(
      '{"format":"evalkit-export/1","processor":{"id":"p","name":"","type":"EXTRACT","version":"1.0","config":{"__proto__":{"x":1}}},"options":{"fuzzyMatchFields":[],"excludeFields":[]},"items":[{"id":"i","fileId":"f","expectedOutput":{"value":{"__proto__":"v"}},"output":null,"status":"FAILED"}]}',
    ) as EvaluationExport;
    for (const ext of ['json', 'jsonl']) {
      const file = path.join(dir, `proto.${ext}`);
      await writeExport(file, exp);
      expect(readFileSync(file, 'utf8')).toContain('"__proto__":');
      const back = await loadExport(file);
      expect(Object.keys(back.processor.config)).toEqual(['__proto__']);
      expect(JSON.stringify(back.items[0].expectedOutput)).toBe('{"value":{"__proto__":"v"}}');
    }
  });

  test('a JSONL export larger than one write chunk is complete, one item per line', async () => {
    const big = 'x'.repeat(5000);
    const exp: EvaluationExport = {
      format: 'evalkit-export/1',
      processor: { id: 'dp_1', name: 'n', type: 'CLASSIFY', version: '1.0', config: { type: 'CLASSIFY' } },
      options: { fuzzyMatchFields: [], excludeFields: [] },
      items: Array.from({ length: 600 }, (_, i) => ({ id: `evi_${i}`, fileId: `file_${i}`, expectedOutput: { id: 'a', type: 'a', note: big }, output: null, status: 'FAILED' as const })),
    };
    const file = path.join(dir, 'big.jsonl');
    const w = await writeExport(file, exp);
    expect(w.bytes).toBeGreaterThan(2 << 20);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(602); // header, 600 items, and the final newline
    expect((await loadExport(file)).items.map((i) => i.id)).toEqual(exp.items.map((i) => i.id));
  });

  test('an explicit format wins over the name; default paths are one safe segment under reports/', async () => {
    const file = path.join(dir, 'named.txt');
    const exp: EvaluationExport = { format: 'evalkit-export/1', processor: { id: 'p', name: '', type: 'EXTRACT', version: 'draft', config: {} }, options: { fuzzyMatchFields: [], excludeFields: [] }, items: [] };
    expect((await writeExport(file, exp, 'jsonl')).format).toBe('jsonl');
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(2);
    expect(defaultExportPath('ev_1-1.0')).toBe(path.join('reports', 'ev_1-1.0.json'));
    expect(defaultExportPath('ev_1-draft', 'jsonl')).toBe(path.join('reports', 'ev_1-draft.jsonl'));
    expect(defaultExportPath('../../etc/x')).toBe(path.join('reports', '__.._etc_x.json'));
  });
});

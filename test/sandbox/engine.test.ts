import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseEngine } from '../../src/sandbox/engine/index.js';
import { parseReplay, replay } from '../../src/sandbox/engine/replay.js';
import { alterDigits, simulate } from '../../src/sandbox/engine/simulate.js';
import type { EngineInput } from '../../src/sandbox/engine/types.js';
import { mulberry32 } from '../../src/sandbox/engine/rng.js';
import { computeMetrics } from '../../src/sandbox/metrics.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG } from './helpers.js';

type Json = Record<string, unknown>;

function input(over: Partial<EngineInput>): EngineInput {
  return {
    runId: 'dpr_1', processorId: 'dp_1', processorType: 'EXTRACT', versionLabel: '1.0', versionId: 'dpv_1', config: INVOICE_CONFIG,
    text: '', pages: [''], fileName: 'a.txt', sha256: 'ab'.repeat(32), truthKey: 'evi_1', ...over,
  };
}

describe('parseEngine', () => {
  test.each([
    [undefined, 'simulate:42,0.1'],
    ['simulate', 'simulate:42,0.1'],
    ['simulate:7', 'simulate:7,0.1'],
    ['simulate:7,0.25', 'simulate:7,0.25'],
    ['simulate:7,0.25,0.05', 'simulate:7,0.25,0.05'],
  ])('%s -> %s', (spec, want) => {
    expect(parseEngine(spec).spec).toBe(want);
  });

  test.each([
    ['simulate:x', /seed must be an integer/],
    ['simulate:1,2', /error rate must be a number from 0 to 1/],
    ['simulate:1,0.1,-1', /failure rate/],
    ['simulate:1,2,3,4', /too many parameters/],
    ['replay:', /needs a file/],
    ['replay:/nonexistent/file.jsonl', /cannot read replay file/],
    ['magic', /unknown engine "magic"/],
  ])('%s is refused', (spec, msg) => {
    expect(() => parseEngine(spec)).toThrow(msg);
  });
});

const leaf = fc.oneof(fc.string({ maxLength: 12 }), fc.integer({ min: -1e6, max: 1e6 }), fc.boolean(), fc.constant(null));
const extractDoc = fc.record({
  invoice_number: fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)),
  total: fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constant(null)),
  paid: fc.oneof(fc.boolean(), fc.constant(null)),
  amount_due: fc.record({ amount: fc.oneof(fc.integer(), fc.constant(null)), iso_4217_currency_code: fc.constantFrom('EUR', 'USD') }),
  line_items: fc.array(fc.record({ description: leaf, quantity: leaf }), { maxLength: 4 }),
});

describe('simulate engine', () => {
  test('error rate 0 returns the expected output exactly', () => {
    fc.assert(
      fc.property(extractDoc, fc.integer(), (value, seed) => {
        const r = simulate(input({ expected: { value } }), { seed, errorRate: 0, failureRate: 0 });
        expect(r.ok && r.output.value).toEqual(value);
      }),
      { numRuns: 60 },
    );
  });

  test('the same seed and truth give the same output; the label says simulated', () => {
    fc.assert(
      fc.property(extractDoc, fc.integer(), (value, seed) => {
        const a = simulate(input({ expected: { value } }), { seed, errorRate: 0.5, failureRate: 0 });
        const b = simulate(input({ expected: { value } }), { seed, errorRate: 0.5, failureRate: 0 });
        expect(a).toEqual(b);
        expect(a.label).toMatchObject({ engine: 'simulate', simulated: true, seed, errorRate: 0.5 });
      }),
      { numRuns: 40 },
    );
  });

  test('error rate 1 changes every present scalar field and lists each injected error', () => {
    const value = { invoice_number: 'INV-42', total: 120.5, paid: true, amount_due: { amount: 99, iso_4217_currency_code: 'EUR' }, line_items: [] };
    const r = simulate(input({ expected: { value } }), { seed: 1, errorRate: 1, failureRate: 0 });
    if (!r.ok) throw new Error('unexpected failure');
    const out = r.output.value as Json;
    for (const k of ['invoice_number', 'total', 'paid', 'amount_due']) expect(out[k], k).not.toEqual(value[k as keyof typeof value]);
    const kinds = (r.label.errors as Array<{ kind: string }>).map((e) => e.kind);
    expect(kinds).toHaveLength(4);
    for (const k of kinds) expect(['dropped_field', 'altered_digits', 'flipped_boolean']).toContain(k);
  });

  test('alterDigits changes exactly one digit and keeps the shape', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Z]{0,3}-?\d{1,8}(\.\d{1,2})?$/), fc.integer(), (s, seed) => {
        const out = alterDigits(s, mulberry32(seed));
        expect(out).toHaveLength(s.length);
        const diffs = [...s].filter((c, i) => c !== out[i]);
        expect(diffs).toHaveLength(1);
        expect(out.replace(/\d/g, '0')).toBe(s.replace(/\d/g, '0'));
      }),
    );
  });

  test('CLASSIFY at error rate 1 picks another configured class', () => {
    for (let seed = 0; seed < 20; seed++) {
      const r = simulate(input({ processorType: 'CLASSIFY', config: CLASSIFY_CONFIG, expected: { id: 'invoice', type: 'invoice' } }), { seed, errorRate: 1, failureRate: 0 });
      expect(r.ok && r.output.id).not.toBe('invoice');
      expect(['receipt', 'contract']).toContain(r.ok && r.output.id);
    }
  });

  test('SPLITTER boundaries shift by one page, splits stay contiguous and inside the document', () => {
    const splits = [
      { id: 'a', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 3 },
      { id: 'b', classificationId: 'receipt', type: 'receipt', startPage: 4, endPage: 6 },
      { id: 'c', classificationId: 'invoice', type: 'invoice', startPage: 7, endPage: 9 },
    ];
    for (let seed = 0; seed < 30; seed++) {
      const r = simulate(input({ processorType: 'SPLITTER', config: SPLITTER_CONFIG, expected: { splits } }), { seed, errorRate: 1, failureRate: 0 });
      if (!r.ok) throw new Error('unexpected failure');
      const out = r.output.splits as typeof splits;
      expect(out[0].startPage).toBe(1);
      expect(out[2].endPage).toBe(9);
      for (let i = 0; i + 1 < out.length; i++) expect(out[i].endPage + 1).toBe(out[i + 1].startPage);
      expect(out.some((s, i) => s.endPage !== splits[i].endPage)).toBe(true);
    }
  });

  test('SPLITTER types are swapped for another configured type, with classificationId to match', () => {
    const splits = [
      { id: 'a', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2 },
      { id: 'b', classificationId: 'receipt', type: 'receipt', startPage: 3, endPage: 3 },
    ];
    const r = simulate(input({ processorType: 'SPLITTER', config: SPLITTER_CONFIG, expected: { splits } }), { seed: 3, errorRate: 1, failureRate: 0 });
    if (!r.ok) throw new Error('unexpected failure');
    expect((r.output.splits as typeof splits).map((s) => [s.classificationId, s.type])).toEqual([
      ['receipt', 'receipt'],
      ['invoice', 'invoice'],
    ]);
    expect((r.label.errors as Array<{ kind: string }>).filter((e) => e.kind === 'wrong_split_type')).toHaveLength(2);
    const clean = simulate(input({ processorType: 'SPLITTER', config: SPLITTER_CONFIG, expected: { splits } }), { seed: 3, errorRate: 0, failureRate: 0 });
    expect(clean.ok && clean.output.splits).toEqual(splits);
  });

  test('without an expected output, EXTRACT reads "Label: value" lines of the text', () => {
    const r = simulate(input({ text: 'Invoice number: A-77\nTotal: 1,234.50\nPaid: yes' }), { seed: 1, errorRate: 0, failureRate: 0 });
    expect(r.ok && r.output.value).toMatchObject({ invoice_number: 'A-77', total: 1234.5, paid: true });
    expect(r.label).toMatchObject({ truth: 'text' });
  });

  test('failure rate 1 fails every run with a reason', () => {
    const r = simulate(input({}), { seed: 1, errorRate: 0, failureRate: 1 });
    expect(r).toMatchObject({ ok: false, reason: 'SIMULATED_FAILURE' });
  });
});

describe('replay engine', () => {
  const records = parseReplay(
    [
      JSON.stringify({ fileName: 'a.pdf', output: { value: { n: 'name' } } }),
      JSON.stringify({ fileName: 'a.pdf', version: '2.0', output: { value: { n: 'name+version' } } }),
      JSON.stringify({ sha256: 'AB'.repeat(32), output: { value: { n: 'hash' } } }),
      '',
      JSON.stringify({ fileName: 'b.pdf', processorId: 'dp_other', output: { value: { n: 'other processor' } } }),
    ].join('\n'),
    'rec.jsonl',
  );
  test.each([
    ['hash beats name', { fileName: 'a.pdf' }, 'hash'],
    ['name + version beats name', { fileName: 'a.pdf', sha256: 'cd'.repeat(32), versionLabel: '2.0' }, 'name+version'],
    ['name', { fileName: 'a.pdf', sha256: 'cd'.repeat(32) }, 'name'],
  ])('%s', (_n, over, want) => {
    const r = replay(records, input(over), 'rec.jsonl');
    expect(r.ok && (r.output.value as Json).n).toBe(want);
  });

  test('no match -> REPLAY_NOT_FOUND; processorId must match when recorded', () => {
    expect(replay(records, input({ fileName: 'b.pdf', sha256: 'cd'.repeat(32) }), 'rec.jsonl')).toMatchObject({ ok: false, reason: 'REPLAY_NOT_FOUND' });
  });

  test.each([
    ['{"fileName": "a"', /invalid JSON/, 1],
    ['{"output": {}}', /needs fileName or sha256/, 1],
    ['\n{"fileName": "a"}', /needs output or failureReason/, 2],
    ['{"fileName": "a", "output": []}', /output must be an object/, 1],
  ])('parse errors name the line: %s', (text, msg, line) => {
    try {
      parseReplay(text, 'r.jsonl');
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toMatch(msg);
      expect((e as { location: { line: number } }).location.line).toBe(line);
    }
  });
});

describe('metrics', () => {
  test('EXTRACT recall and precision per field, excluded fields left out', () => {
    const runs = [
      { expected: { value: { a: 'x', b: 1, c: 'k' } }, output: { value: { a: 'x', b: 2, c: 'k' } } },
      { expected: { value: { a: 'y', b: null, c: 'k' } }, output: { value: { a: null, b: 5, c: 'k' } } },
    ].map((r) => ({ ...r, status: 'PROCESSED', runTimeMs: 10, numPages: 2 }));
    const m = computeMetrics('EXTRACT', runs, { excludeFields: ['c'] }) as { fieldMetrics: Record<string, Json>; numPages: number; accuracyPerc: number };
    expect(m.numPages).toBe(4);
    expect(Object.keys(m.fieldMetrics)).toEqual(['a', 'b']);
    expect(m.fieldMetrics.a).toMatchObject({ recallPerc: 50, precisionPerc: 100 });
    expect(m.fieldMetrics.b).toMatchObject({ recallPerc: 0, precisionPerc: 0 });
    expect(m.accuracyPerc).toBe(25);
  });

  test('fuzzy-matched fields accept near strings', () => {
    const runs = [{ expected: { value: { name: 'Acme Corporation' } }, output: { value: { name: 'Acme Corporatoin' } }, status: 'PROCESSED', runTimeMs: 1, numPages: 1 }];
    expect((computeMetrics('EXTRACT', runs, {}) as { fieldMetrics: Record<string, Json> }).fieldMetrics.name.recallPerc).toBe(0);
    expect((computeMetrics('EXTRACT', runs, { fuzzyMatchFields: ['name'] }) as { fieldMetrics: Record<string, Json> }).fieldMetrics.name.recallPerc).toBe(100);
  });
});

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { backoffDelay, buildQuery, parseRetryAfter } from '../../src/api/http.js';
import { envelopes, fileSchema, processorRunSchema, TERMINAL_RUN_STATUSES } from '../../src/api/model.js';
import { fx } from './helpers.js';

describe('resource model', () => {
  test.each([
    ['processorRun', envelopes.processorRun, { success: true, processorRun: fx.run() }],
    ['processorVersion', envelopes.processorVersion, { success: true, version: fx.version() }],
    ['file', envelopes.file, { success: true, file: fx.file() }],
    ['batchProcessorRun', envelopes.batchProcessorRun, { success: true, batchProcessorRun: fx.batch() }],
    ['evaluationSetItemList', envelopes.evaluationSetItemList, { success: true, evaluationSetItems: [fx.item()], nextPageToken: 'n' }],
  ])('%s: parsing keeps every member, known or not', (_name, schema, body) => {
    const withExtra = JSON.parse(JSON.stringify({ ...body, futureTopLevel: [1] }));
    expect(schema.parse(withExtra)).toEqual(withExtra);
  });

  test('a run status outside the five known values is refused', () => {
    expect(processorRunSchema.safeParse(fx.run({ status: 'DONE' })).success).toBe(false);
    expect([...TERMINAL_RUN_STATUSES].sort()).toEqual(['CANCELLED', 'FAILED', 'PROCESSED']);
  });

  test('file contents keep pages and their markdown', () => {
    const f = fileSchema.parse(fx.file({ contents: { rawText: 't', pages: [{ pageNumber: 1, markdown: 'm', html: '<p>' }] } }));
    expect(f.contents?.pages?.[0]).toEqual({ pageNumber: 1, markdown: 'm', html: '<p>' });
  });
});

describe('Retry-After parsing', () => {
  test('seconds: any non-negative integer', () => {
    fc.assert(fc.property(fc.nat(100_000), (s) => parseRetryAfter(String(s), 0) === s * 1000));
  });

  test('HTTP date: the distance from now, never negative', () => {
    const now = Date.parse('2025-05-01T00:00:00Z');
    fc.assert(
      fc.property(fc.integer({ min: -86_400, max: 86_400 }), (s) => {
        const date = new Date(now + s * 1000).toUTCString();
        return parseRetryAfter(date, now) === Math.max(0, s * 1000);
      }),
    );
  });

  test.each([[null], ['soon'], ['']])('%o gives no delay', (v) => {
    expect(parseRetryAfter(v, 0)).toBeUndefined();
  });
});

test('backoff stays within [0, min(cap, base * 2^n))', () => {
  fc.assert(
    fc.property(fc.nat(30), fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 1, max: 60_000 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, base, cap, r) => {
      const d = backoffDelay(n, base, cap, () => r);
      return d >= 0 && d < Math.min(cap, base * 2 ** n) + 1e-9 && Number.isInteger(d);
    }),
  );
});

test('query strings round-trip through URLSearchParams and skip absent values', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(undefined))), (q) => {
      const qs = buildQuery(q);
      const back = Object.fromEntries(new URLSearchParams(qs.slice(1)));
      const want = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
      return JSON.stringify(back) === JSON.stringify(want);
    }),
  );
});

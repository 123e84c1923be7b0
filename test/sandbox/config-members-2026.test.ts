/**
 * Unknown top-level members of a 2026-02-09 extractor, classifier or splitter config (core.ts
 * fromCurrent; docs/sandbox-api.md, "Unknown top-level config members"): a 400 naming the member
 * and its pointer, with the listed member it is probably a typo of, and nothing stored or run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createProcessor, start, uploadText, type TestSandbox } from './helpers.js';

type J = Record<string, unknown>;
const V26 = '2026-02-09';
const SCHEMA = { type: 'object', properties: { total: { type: ['number', 'null'] } } };
const EXTRACT_MEMBERS = 'baseProcessor, baseVersion, schema, extractionRules, parseConfig, advancedOptions';

let t: TestSandbox;
let fileId: string;
const call = (method: string, path: string, body?: unknown) => t.call<J>(method, path, { version: V26, ...(body === undefined ? {} : { body }) });

/** The whole message of a 400 ApiError. */
async function refusal(method: string, path: string, body: unknown): Promise<string> {
  const r = await call(method, path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.code).toBe('INVALID_REQUEST');
  return String(r.body.message);
}

const ids = async (path: string): Promise<unknown[]> => ((await call('GET', path)).body.data as J[]).map((x) => x.id);

beforeAll(async () => {
  t = await start();
  fileId = await uploadText(t, 'invoice.txt', 'Total: 5');
});
afterAll(() => t?.close());

describe('extractors', () => {
  test('create: a typo of a member is a 400 naming it, its pointer and the member meant; nothing stored', async () => {
    const before = await ids('/extractors');
    const message = await refusal('POST', '/extractors', { name: 'typo', config: { schema: SCHEMA, extractionRulez: 'Totals include tax.' } });
    expect(message).toBe('invalid EXTRACT config for API version 2026-02-09: /config/extractionRulez: unknown member "extractionRulez"; did you mean "extractionRules"?');
    expect(await ids('/extractors')).toEqual(before);
  });

  test('a member far from every listed one: remove it, and the members are listed', async () => {
    const message = await refusal('POST', '/extractors', { name: 'far', config: { schema: SCHEMA, fooBar: 1 } });
    expect(message).toBe(`invalid EXTRACT config for API version 2026-02-09: /config/fooBar: unknown member "fooBar"; remove it (the members are ${EXTRACT_MEMBERS})`);
  });

  test('user keys are data: "constructor" and "a/b" are unknown members, the latter escaped in the pointer', async () => {
    const message = await refusal('POST', '/extractors', { name: 'keys', config: { schema: SCHEMA, constructor: 1, 'a/b': 2 } });
    expect(message).toContain('/config/constructor: unknown member "constructor"; remove it');
    expect(message).toContain('/config/a~1b: unknown member "a/b"; remove it');
  });

  test('a member of another layout keeps its own message, and is not reported twice', async () => {
    const message = await refusal('POST', '/extractors', { name: 'old', config: { schema: SCHEMA, parser: {} } });
    expect(message).toBe('invalid EXTRACT config for API version 2026-02-09: /config/parser: has no place in this layout: remove it, or migrate the config (evalkit migrate)');
  });

  test('update: a 400, and the stored config is unchanged', async () => {
    const ex = await call('POST', '/extractors', { name: 'kept', config: { schema: SCHEMA, extractionRules: 'r1' } });
    expect(ex.status).toBe(200);
    const id = String(ex.body.id);
    const message = await refusal('POST', `/extractors/${id}`, { config: { schema: SCHEMA, ExtractionRules: 'r2' } });
    expect(message).toBe('invalid EXTRACT config for API version 2026-02-09: /config/ExtractionRules: unknown member "ExtractionRules"; did you mean "extractionRules"?');
    const got = await call('GET', `/extractors/${id}`);
    expect((got.body.draftVersion as J).config).toMatchObject({ extractionRules: 'r1' });
    expect(Object.keys((got.body.draftVersion as J).config as J)).not.toContain('ExtractionRules');
  });

  test('a version: a 400, no version published', async () => {
    const ex = await call('POST', '/extractors', { name: 'ver', config: { schema: SCHEMA } });
    const id = String(ex.body.id);
    const message = await refusal('POST', `/extractors/${id}/versions`, { releaseType: 'major', config: { schemas: SCHEMA } });
    expect(message).toContain('/config/schemas: unknown member "schemas"; did you mean "schema"?');
    expect(await ids(`/extractors/${id}/versions`)).toHaveLength(1); // the draft only
  });
});

describe('extract runs', () => {
  test('an inline config with an unknown member: a 400 at /config, no run made', async () => {
    const before = await ids('/extract_runs');
    const message = await refusal('POST', '/extract_runs', { config: { schema: SCHEMA, extractionRulez: 'x' }, file: { id: fileId } });
    expect(message).toBe('invalid EXTRACT config for API version 2026-02-09: /config/extractionRulez: unknown member "extractionRulez"; did you mean "extractionRules"?');
    expect(await ids('/extract_runs')).toEqual(before);
  });

  test('the sync route too', async () => {
    const message = await refusal('POST', '/extract', { config: { schema: SCHEMA, fooBar: true }, file: { id: fileId } });
    expect(message).toContain('/config/fooBar: unknown member "fooBar"; remove it');
  });

  test('overrideConfig: a 400 at /extractor/overrideConfig', async () => {
    const ex = await call('POST', '/extractors', { name: 'over', config: { schema: SCHEMA } });
    const message = await refusal('POST', '/extract_runs', { extractor: { id: ex.body.id, overrideConfig: { Schema: SCHEMA } }, file: { id: fileId } });
    expect(message).toBe('invalid EXTRACT config for API version 2026-02-09: /extractor/overrideConfig/Schema: unknown member "Schema"; did you mean "schema"?');
  });

  test('a member a legacy /processors config kept is not the caller\'s: an override of another member runs', async () => {
    const id = await createProcessor(t, 'EXTRACT', { type: 'EXTRACT', schema: SCHEMA, fooBar: 1 }, 'legacy');
    expect((await call('GET', `/extractors/${id}`)).body.draftVersion).toMatchObject({ config: { fooBar: 1 } });
    const r = await call('POST', '/extract_runs', { extractor: { id, overrideConfig: { extractionRules: 'x' } }, file: { id: fileId } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // So is a clone of it with a config of the caller's.
    const clone = await call('POST', '/extractors', { name: 'clone', cloneExtractorId: id, config: { extractionRules: 'y' } });
    expect(clone.status, JSON.stringify(clone.body)).toBe(200);
    const bad = await refusal('POST', '/extractors', { name: 'clone2', cloneExtractorId: id, config: { extractionRule: 'y' } });
    expect(bad).toContain('/config/extractionRule: unknown member "extractionRule"; did you mean "extractionRules"?');
  });
});

describe('classifiers and splitters', () => {
  test('a classifier config and a classify run', async () => {
    const classifications = [{ id: 'inv', type: 'invoice', description: 'an invoice' }];
    expect(await refusal('POST', '/classifiers', { name: 'c', config: { classifications, classificationsRules: 'x' } })).toBe(
      'invalid CLASSIFY config for API version 2026-02-09: /config/classificationsRules: unknown member "classificationsRules"; did you mean "classificationRules"?',
    );
    expect(await refusal('POST', '/classify_runs', { config: { classifications, extra: 1 }, file: { id: fileId } })).toBe(
      'invalid CLASSIFY config for API version 2026-02-09: /config/extra: unknown member "extra"; remove it (the members are baseProcessor, baseVersion, classifications, classificationRules, parseConfig, advancedOptions)',
    );
  });

  test('a splitter config and a split run', async () => {
    const splitClassifications = [{ id: 'inv', type: 'invoice', description: 'an invoice' }];
    expect(await refusal('POST', '/splitters', { name: 's', config: { splitClassifications, splitRule: 'x' } })).toBe(
      'invalid SPLITTER config for API version 2026-02-09: /config/splitRule: unknown member "splitRule"; did you mean "splitRules"?',
    );
    expect(await refusal('POST', '/split_runs', { config: { splitClassifications, splitMethod: 'high_precision' }, file: { id: fileId } })).toContain('/config/splitMethod: unknown member "splitMethod"');
  });
});

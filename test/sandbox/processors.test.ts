import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, createProcessor, start, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
let t: TestSandbox;
beforeAll(async () => {
  t = await start();
});
afterAll(() => t.close());

describe('POST /processors (4.8)', () => {
  test('creates a processor without draftVersion; unsupplied config members take defaults', async () => {
    const r = await t.call<{ processor: Json }>('POST', '/processors', { body: { name: 'Invoices', type: 'EXTRACT' } });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.processor).toMatchObject({ object: 'document_processor', name: 'Invoices', type: 'EXTRACT' });
    expect(r.body.processor.id).toMatch(/^dp_/);
    expect(r.body.processor).not.toHaveProperty('draftVersion');
    const draft = await t.call<{ version: Json }>('GET', `/processors/${String(r.body.processor.id)}/versions/draft`);
    expect(draft.body.version.config).toMatchObject({ type: 'EXTRACT', baseProcessor: 'extraction_performance', baseVersion: expect.any(String), schema: { type: 'object' } });
  });

  test('cloneProcessorId copies the config', async () => {
    const src = await createProcessor(t, 'CLASSIFY', { ...CLASSIFY_CONFIG, classificationRules: 'be careful' });
    const r = await t.call<{ processor: { id: string } }>('POST', '/processors', { body: { name: 'copy', type: 'CLASSIFY', cloneProcessorId: src } });
    expect(r.status).toBe(200);
    const v = await t.call<{ version: Json }>('GET', `/processors/${r.body.processor.id}/versions/draft`);
    expect(v.body.version.config).toMatchObject({ classifications: CLASSIFY_CONFIG.classifications, classificationRules: 'be careful' });
  });

  test.each([
    ['no name', { type: 'EXTRACT' }, 400, /name is required/],
    ['empty name', { name: ' ', type: 'EXTRACT' }, 400, /name must be a non-empty string/],
    ['no type', { name: 'x' }, 400, /type is required/],
    ['bad type', { name: 'x', type: 'OCR' }, 400, /type must be one of EXTRACT, CLASSIFY, SPLITTER/],
    ['config not an object', { name: 'x', type: 'EXTRACT', config: [] }, 400, /config must be an object/],
    ['config of another type', { name: 'x', type: 'EXTRACT', config: { type: 'CLASSIFY' } }, 400, /does not match the processor type/],
    ['invalid config', { name: 'x', type: 'EXTRACT', config: { schema: 'nope' } }, 400, /invalid config.*\/config\/schema/],
    ['jsonSchemaEnabled not boolean', { name: 'x', type: 'EXTRACT', jsonSchemaEnabled: 'yes' }, 400, /jsonSchemaEnabled must be a boolean/],
    ['malformed cloneProcessorId', { name: 'x', type: 'EXTRACT', cloneProcessorId: 'a b' }, 400, /cloneProcessorId "a b" is not a valid id/],
    ['unknown cloneProcessorId', { name: 'x', type: 'EXTRACT', cloneProcessorId: 'dp_missing' }, 404, /cloneProcessorId dp_missing not found/],
    ['body not an object', [1], 400, /request body must be a JSON object/],
  ])('%s -> %i', async (_name, body, status, msg) => {
    const r = await t.call('POST', '/processors', { body });
    expect(r.status).toBe(status);
    expect(r.body).toEqual({ success: false, error: expect.stringMatching(msg) });
  });

  test('a clone of another type is refused', async () => {
    const src = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG);
    const r = await t.call('POST', '/processors', { body: { name: 'x', type: 'EXTRACT', cloneProcessorId: src } });
    expect(r.status).toBe(400);
  });
});

describe('POST /processors/:id (4.9)', () => {
  test('updates the draft: updatedAt moves, the response includes draftVersion', async () => {
    const id = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const before = await t.call<{ processors: Array<{ id: string; updatedAt: string }> }>('GET', '/processors');
    const created = before.body.processors.find((p) => p.id === id) as { updatedAt: string };
    const config = { ...INVOICE_CONFIG, extractionRules: 'dates are ISO' };
    const r = await t.call<{ processor: Json & { draftVersion: Json } }>('POST', `/processors/${id}`, { body: { name: 'renamed', config } });
    expect(r.status).toBe(200);
    expect(r.body.processor.name).toBe('renamed');
    expect(String(r.body.processor.updatedAt) > created.updatedAt).toBe(true);
    expect(r.body.processor.draftVersion).toMatchObject({ version: 'draft', id: expect.stringMatching(/^dpv_/), config: { extractionRules: 'dates are ISO' } });
  });

  test.each([
    ['nothing to update', {}, 400, /supply name or config/],
    ['invalid config', { config: { schema: 3 } }, 400, /invalid config/],
    ['name not a string', { name: 3 }, 400, /name must be a string/],
  ])('%s -> %i', async (_n, body, status, msg) => {
    const id = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const r = await t.call('POST', `/processors/${id}`, { body });
    expect(r.status).toBe(status);
    expect(r.body.error).toMatch(msg);
  });

  test('404 for an unknown processor, 400 for a malformed id', async () => {
    expect((await t.call('POST', '/processors/dp_missing', { body: { name: 'x' } })).status).toBe(404);
    expect((await t.call('POST', `/processors/${encodeURIComponent('dp x')}`, { body: { name: 'x' } })).status).toBe(400);
  });
});

describe('publish and versions (4.10, 4.11)', () => {
  test('major and minor numbering: 1.0, 1.1, 2.0; a snapshot of the draft or of the supplied config', async () => {
    const id = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const publish = async (body: Json): Promise<Json> => {
      const r = await t.call<{ processorVersion: Json }>('POST', `/processors/${id}/publish`, { body });
      expect(r.status).toBe(200);
      return r.body.processorVersion;
    };
    const v1 = await publish({ releaseType: 'major', description: 'first' });
    expect(v1).toMatchObject({ object: 'document_processor_version', version: '1.0', processorId: id, processorType: 'EXTRACT', description: 'first' });
    const supplied = { ...INVOICE_CONFIG, extractionRules: 'supplied' };
    const v11 = await publish({ releaseType: 'minor', config: supplied });
    expect(v11).toMatchObject({ version: '1.1', config: { extractionRules: 'supplied' } });
    const v2 = await publish({ releaseType: 'major' });
    expect(v2.version).toBe('2.0');
    expect(v2.config).not.toHaveProperty('extractionRules');

    const list = await t.call<{ versions: Json[] }>('GET', `/processors/${id}/versions`);
    expect(list.body.versions.map((v) => v.version)).toEqual(['draft', '2.0', '1.1', '1.0']);
    const got = await t.call<{ version: Json }>('GET', `/processors/${id}/versions/${String(v11.id)}`);
    expect(got.body.version).toEqual(v11);
    const byNumber = await t.call<{ version: Json }>('GET', `/processors/${id}/versions/1.1`);
    expect(byNumber.body.version.id).toBe(v11.id);
  });

  test('the first minor release is 0.1', async () => {
    const id = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG);
    const r = await t.call<{ processorVersion: Json }>('POST', `/processors/${id}/publish`, { body: { releaseType: 'minor' } });
    expect(r.body.processorVersion.version).toBe('0.1');
  });

  test.each([
    ['no releaseType', {}, /releaseType is required/],
    ['bad releaseType', { releaseType: 'patch' }, /releaseType must be "major" or "minor"/],
    ['invalid supplied config', { releaseType: 'major', config: { schema: [] } }, /invalid config for EXTRACT/],
    ['description not a string', { releaseType: 'major', description: 1 }, /description must be a string/],
  ])('400: %s', async (_n, body, msg) => {
    const id = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const r = await t.call('POST', `/processors/${id}/publish`, { body });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(msg);
  });

  test('404 for unknown processors and versions', async () => {
    const id = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const other = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const otherDraft = await t.call<{ version: Json }>('GET', `/processors/${other}/versions/draft`);
    for (const path of [`/processors/dp_missing/versions`, `/processors/dp_missing/versions/draft`, `/processors/${id}/versions/dpv_missing`, `/processors/${id}/versions/3.0`, `/processors/${id}/versions/${String(otherDraft.body.version.id)}`, '/processors/dp_missing/publish']) {
      const r = await t.call(path.endsWith('publish') ? 'POST' : 'GET', path, { body: path.endsWith('publish') ? { releaseType: 'major' } : undefined });
      expect(r.status, path).toBe(404);
      expect(r.body.error).toMatch(/not found/);
    }
  });
});

describe('GET /processors paging', () => {
  test('maxPageSize and nextPageToken walk every processor exactly once', async () => {
    const fresh = await start();
    try {
      const ids = [];
      for (let i = 0; i < 7; i++) ids.push(await createProcessor(fresh, i % 2 ? 'CLASSIFY' : 'EXTRACT', undefined, `p${i}`));
      const seen: string[] = [];
      let token: string | null = null;
      do {
        const q: string = `?maxPageSize=3&sortDir=asc${token ? `&nextPageToken=${token}` : ''}`;
        const r = await fresh.call<{ processors: Array<{ id: string }>; nextPageToken: string | null }>('GET', `/processors${q}`);
        expect(r.status).toBe(200);
        expect(r.body.processors.length).toBeLessThanOrEqual(3);
        seen.push(...r.body.processors.map((p) => p.id));
        token = r.body.nextPageToken;
      } while (token);
      expect(seen).toEqual(ids);
      const classify = await fresh.call<{ processors: Array<{ type: string }> }>('GET', '/processors?type=CLASSIFY');
      expect(classify.body.processors).toHaveLength(3);
    } finally {
      await fresh.close();
    }
  });

  test.each([
    ['maxPageSize=0', /maxPageSize must be an integer from 1 to 1000/],
    ['maxPageSize=abc', /maxPageSize/],
    ['sortBy=size', /sortBy must be one of/],
    ['sortDir=up', /sortDir must be asc or desc/],
    ['nextPageToken=garbage', /nextPageToken/],
    ['type=OCR', /type must be one of/],
  ])('400 for %s', async (q, msg) => {
    const r = await t.call('GET', `/processors?${q}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(msg);
  });
});

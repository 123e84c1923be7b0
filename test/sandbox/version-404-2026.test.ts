/**
 * 404s of the 2026-02-09 version routes (and runs naming a version) name the kind: extractor,
 * classifier, splitter. The 2025-04-21 /processors routes keep saying processor.
 */
import { describe, expect, test } from 'vitest';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, sandboxFor2026Tests } from './helpers.js';

type Json = Record<string, unknown>;

const { call, sandbox } = sandboxFor2026Tests();

const { type: _c, ...CLASSIFY_26 } = CLASSIFY_CONFIG;
const { type: _s, ...SPLIT_26 } = SPLITTER_CONFIG;

async function extractor(): Promise<string> {
  const r = await call<Json>('POST', '/extractors', { name: 'x', config: { schema: INVOICE_CONFIG.schema } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id as string;
}

describe('404s of the 2026-02-09 version routes name the kind', () => {
  const kinds = [
    ['extractor', '/extractors', () => ({ schema: INVOICE_CONFIG.schema }), 'exv_'],
    ['classifier', '/classifiers', () => CLASSIFY_26, 'clv_'],
    ['splitter', '/splitters', () => SPLIT_26, 'splv_'],
  ] as const;

  test.each(kinds)('%s: an unknown version label or id, and a version of another %s', async (noun, route, config, vprefix) => {
    const made = await call<Json>('POST', route, { name: 'k', config: config() });
    expect(made.status).toBe(200);
    const id = made.body.id as string;
    const other = await call<Json>('POST', route, { name: 'k2', config: config() });
    const otherDraft = (other.body.draftVersion as Json).id as string;

    const byLabel = await call<Json>('GET', `${route}/${id}/versions/9.0`);
    expect(byLabel.status).toBe(404);
    expect(byLabel.body.message).toBe(`version 9.0 of ${noun} ${id} not found`);

    const unknownId = `${vprefix}AAAAAAAAAAAAAAAAAAAA`;
    const byId = await call<Json>('GET', `${route}/${id}/versions/${unknownId}`);
    expect(byId.status).toBe(404);
    expect(byId.body.message).toBe(`version ${unknownId} of ${noun} ${id} not found`);

    const foreign = await call<Json>('GET', `${route}/${id}/versions/${otherDraft}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe(`version ${otherDraft} of ${noun} ${id} not found`);

    for (const r of [byLabel, byId, foreign]) expect(r.body.message).not.toContain('processor');
  });

  test('an unknown id on a version route names the kind', async () => {
    const r = await call<Json>('GET', '/extractors/ex_AAAAAAAAAAAAAAAAAAAA/versions/draft');
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('extractor ex_AAAAAAAAAAAAAAAAAAAA not found');
  });

  test('a run of an unknown version names the kind', async () => {
    const id = await extractor();
    const r = await call<Json>('POST', '/extract_runs', { extractor: { id, version: '3.0' }, file: { url: 'http://127.0.0.1:1/x.txt' } });
    expect(r.status).toBe(404);
    expect(r.body.message).toBe(`version 3.0 of extractor ${id} not found`);
  });

  test('the 2025-04-21 /processors version route keeps saying processor', async () => {
    const id = await createProcessor(sandbox(), 'EXTRACT');
    const r = await sandbox().call<Json>('GET', `/processors/${id}/versions/9.0`);
    expect(r.status).toBe(404);
    expect(r.body.error).toBe(`version 9.0 of processor ${id} not found`);
  });
});

/**
 * 2026-02-09 extractors, classifiers, splitters and their versions (spec 2, 7): one object under
 * two routes with the legacy /processors, answers member for member as spec 7 declares them.
 */
import { describe, expect, test } from 'vitest';
import { seededIds } from '../../src/sandbox/ids.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, sandboxFor2026Tests, start } from './helpers.js';

type Json = Record<string, unknown>;

const V26 = '2026-02-09';
const { call, sandbox } = sandboxFor2026Tests();

const EXTRACT_26 = { schema: INVOICE_CONFIG.schema, parseConfig: { target: 'markdown', engine: 'parse_light' } };
const { type: _c, ...CLASSIFY_26 } = CLASSIFY_CONFIG;
const { type: _s, ...SPLIT_26 } = SPLITTER_CONFIG;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function keys(o: unknown): string[] {
  return Object.keys(o as Json).sort();
}

describe('extractors: the 7 operations, answers as spec 7', () => {
  let id: string;
  test('create answers a bare Extractor with its draftVersion (ExtractorVersion)', async () => {
    const r = await call('POST', '/extractors', { name: 'Invoices', config: EXTRACT_26 });
    expect(r.status).toBe(200);
    const e = r.body as Json;
    expect(keys(e)).toEqual(['createdAt', 'draftVersion', 'id', 'name', 'object', 'updatedAt']);
    expect(e.object).toBe('extractor');
    expect(e.id).toMatch(/^ex_[0-9A-Za-z]{20}$/);
    expect(e.name).toBe('Invoices');
    expect(e.createdAt).toMatch(ISO);
    expect(e.updatedAt).toBe(e.createdAt);
    const d = e.draftVersion as Json;
    expect(keys(d)).toEqual(['config', 'createdAt', 'createdBy', 'description', 'extractorId', 'id', 'object', 'version']);
    expect(d).toMatchObject({ object: 'extractor_version', description: null, version: 'draft', extractorId: e.id, createdBy: { type: 'api_key', name: 'default dev token' } });
    expect(d.id).toMatch(/^exv_/);
    // The config comes back in the 2026-02-09 layout with the defaults filled in and its 2026-only member kept.
    const cfg = d.config as Json;
    expect(cfg).not.toHaveProperty('type');
    expect(cfg).not.toHaveProperty('parser');
    expect(cfg.schema).toEqual(INVOICE_CONFIG.schema);
    expect(cfg.parseConfig).toEqual({ target: 'markdown', engine: 'parse_light' });
    expect(cfg.baseProcessor).toBe('extraction_performance');
    id = e.id as string;
  });

  test('retrieve, update (name and config), list with paging', async () => {
    const got = await call<Json>('GET', `/extractors/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(id);
    expect((got.body.draftVersion as Json).version).toBe('draft');
    const up = await call<Json>('POST', `/extractors/${id}`, { name: 'Invoices 2', config: { schema: { type: 'object', properties: { total: { type: ['number', 'null'] } } } } });
    expect(up.status).toBe(200);
    expect(up.body.name).toBe('Invoices 2');
    expect(((up.body.draftVersion as Json).config as Json).schema).toEqual({ type: 'object', properties: { total: { type: ['number', 'null'] } } });
    expect(String(up.body.updatedAt) > String(got.body.updatedAt)).toBe(true);
    const none = await call<Json>('POST', `/extractors/${id}`, {});
    expect(none.status).toBe(400);
    expect(none.body.message).toMatch(/^supply name or config to update an extractor$/);

    await call('POST', '/extractors', { name: 'second' });
    const page1 = await call<Json>('GET', '/extractors?maxPageSize=1&sortBy=createdAt&sortDir=asc');
    expect(page1.status).toBe(200);
    expect(page1.body.object).toBe('list');
    const data = page1.body.data as Json[];
    expect(data).toHaveLength(1);
    expect(keys(data[0])).toEqual(['createdAt', 'id', 'name', 'object', 'updatedAt']);
    expect(data[0].id).toBe(id);
    const page2 = await call<Json>('GET', `/extractors?maxPageSize=1&sortBy=createdAt&sortDir=asc&nextPageToken=${String(page1.body.nextPageToken)}`);
    expect((page2.body.data as Json[])[0].name).toBe('second');
    const all = await call<Json>('GET', '/extractors?maxPageSize=100');
    expect(all.body).not.toHaveProperty('nextPageToken');
  });

  test('versions: create (ExtractorVersion), list newest first with the draft first (summaries), retrieve', async () => {
    const v1 = await call<Json>('POST', `/extractors/${id}/versions`, { releaseType: 'major', description: 'first' });
    expect(v1.status).toBe(200);
    expect(keys(v1.body)).toEqual(['config', 'createdAt', 'createdBy', 'description', 'extractorId', 'id', 'object', 'version']);
    expect(v1.body).toMatchObject({ object: 'extractor_version', version: '1.0', description: 'first', extractorId: id, createdBy: { type: 'api_key', name: 'default dev token' } });
    expect(v1.body.id).toMatch(/^exv_/);
    const v2 = await call<Json>('POST', `/extractors/${id}/versions`, { releaseType: 'minor', config: EXTRACT_26 });
    expect(v2.body).toMatchObject({ version: '1.1', description: null });
    expect((v2.body.config as Json).parseConfig).toEqual({ target: 'markdown', engine: 'parse_light' });
    const list = await call<Json>('GET', `/extractors/${id}/versions`);
    const rows = list.body.data as Json[];
    expect(rows.map((v) => v.version)).toEqual(['draft', '1.1', '1.0']);
    expect(keys(rows[1])).toEqual(['createdAt', 'createdBy', 'description', 'extractorId', 'id', 'object', 'version']);
    const asc = await call<Json>('GET', `/extractors/${id}/versions?sortDir=asc&maxPageSize=2`);
    expect((asc.body.data as Json[]).map((v) => v.version)).toEqual(['1.0', '1.1']);
    expect(asc.body.nextPageToken).toEqual(expect.any(String));
    const one = await call<Json>('GET', `/extractors/${id}/versions/${String(v1.body.id)}`);
    expect(one.body).toEqual(v1.body);
    const bad = await call<Json>('POST', `/extractors/${id}/versions`, {});
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/releaseType is required/);
  });

  test('cloneExtractorId copies the draft config; with config the supplied members replace the clone\'s', async () => {
    const c = await call<Json>('POST', '/extractors', { name: 'clone', cloneExtractorId: id });
    expect(c.status).toBe(200);
    const src = await call<Json>('GET', `/extractors/${id}`);
    expect((c.body.draftVersion as Json).config).toEqual((src.body.draftVersion as Json).config);
    const merged = await call<Json>('POST', '/extractors', { name: 'clone2', cloneExtractorId: id, config: { parseConfig: { target: 'spatial' } } });
    const cfg = (merged.body.draftVersion as Json).config as Json;
    expect(cfg.parseConfig).toEqual({ target: 'spatial' });
    expect(cfg.schema).toEqual(((src.body.draftVersion as Json).config as Json).schema);
  });

  test('generate is refused with a 400 that says to send config', async () => {
    const r = await call<Json>('POST', '/extractors', { name: 'gen', generate: { files: [{ id: 'file_x' }] } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_REQUEST', retryable: false });
    expect(r.body.message).toMatch(/generate is not emulated.*send config/);
  });
});

describe('classifiers and splitters', () => {
  test('classifier: create, retrieve, versions, with cl_/clv_ ids and ClassifyConfig', async () => {
    const c = await call<Json>('POST', '/classifiers', { name: 'Kinds', config: CLASSIFY_26 });
    expect(c.status).toBe(200);
    expect(c.body.object).toBe('classifier');
    expect(c.body.id).toMatch(/^cl_/);
    const d = c.body.draftVersion as Json;
    expect(keys(d)).toEqual(['classifierId', 'config', 'createdAt', 'createdBy', 'description', 'id', 'object', 'version']);
    expect(d).toMatchObject({ object: 'classifier_version', classifierId: c.body.id });
    expect(d.id).toMatch(/^clv_/);
    expect((d.config as Json).classifications).toEqual(CLASSIFY_26.classifications);
    const v = await call<Json>('POST', `/classifiers/${String(c.body.id)}/versions`, { releaseType: 'minor' });
    expect(v.body).toMatchObject({ object: 'classifier_version', version: '0.1', classifierId: c.body.id });
    const list = await call<Json>('GET', '/classifiers');
    expect((list.body.data as Json[]).map((x) => x.object)).toEqual(expect.arrayContaining(['classifier']));
    expect((list.body.data as Json[]).every((x) => x.object === 'classifier')).toBe(true);
  });

  test('splitter: create with a 2026-only member (identifierKey) that comes back, versions list', async () => {
    const cfg = { splitClassifications: [{ ...SPLIT_26.splitClassifications[0], identifierKey: 'invoice number' }, SPLIT_26.splitClassifications[1]] };
    const s = await call<Json>('POST', '/splitters', { name: 'Split', config: cfg });
    expect(s.status).toBe(200);
    expect(s.body.id).toMatch(/^spl_/);
    const d = s.body.draftVersion as Json;
    expect(d).toMatchObject({ object: 'splitter_version', splitterId: s.body.id });
    expect(d.id).toMatch(/^splv_/);
    expect((d.config as Json).splitClassifications).toEqual(cfg.splitClassifications);
    const vs = await call<Json>('GET', `/splitters/${String(s.body.id)}/versions`);
    expect((vs.body.data as Json[]).map((v) => v.object)).toEqual(['splitter_version']);
  });
});

describe('one object under two routes', () => {
  test('an extractor is a processor on /processors, and a dp_ EXTRACT processor is an extractor', async () => {
    const e = await call<Json>('POST', '/extractors', { name: 'both', config: EXTRACT_26 });
    const exId = e.body.id as string;
    // The legacy routes see it with its ex_ id, in the hub layout without the 2026-only members.
    const legacyList = await sandbox().call<{ processors: Json[] }>('GET', '/processors?type=EXTRACT&maxPageSize=1000');
    const row = legacyList.body.processors.find((p) => p.id === exId);
    expect(row).toMatchObject({ object: 'document_processor', type: 'EXTRACT', name: 'both' });
    const pub = await sandbox().call<{ processorVersion: Json }>('POST', `/processors/${exId}/publish`, { body: { releaseType: 'major' } });
    expect(pub.status).toBe(200);
    expect(pub.body.processorVersion.id).toMatch(/^exv_/);
    expect(pub.body.processorVersion.config).toMatchObject({ type: 'EXTRACT', parser: { target: 'markdown' } });
    expect(JSON.stringify(pub.body.processorVersion.config)).not.toContain('engine');
    // ... and the version published on the legacy route is a version of the extractor.
    const vs = await call<Json>('GET', `/extractors/${exId}/versions`);
    expect((vs.body.data as Json[]).map((v) => v.version)).toEqual(['draft', '1.0']);
    const v = await call<Json>('GET', `/extractors/${exId}/versions/${pub.body.processorVersion.id as string}`);
    expect((v.body.config as Json).parseConfig).toEqual({ target: 'markdown', engine: 'parse_light' });

    const dp = await createProcessor(sandbox(), 'EXTRACT', INVOICE_CONFIG, 'legacy one');
    expect(dp).toMatch(/^dp_/);
    const got = await call<Json>('GET', `/extractors/${dp}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ object: 'extractor', id: dp, name: 'legacy one' });
    expect((got.body.draftVersion as Json).id).toMatch(/^dpv_/);
    const v2 = await call<Json>('POST', `/extractors/${dp}/versions`, { releaseType: 'minor' });
    expect(v2.body.id).toMatch(/^dpv_/);
    const all = await call<Json>('GET', '/extractors?maxPageSize=1000');
    expect((all.body.data as Json[]).map((x) => x.id)).toEqual(expect.arrayContaining([dp, exId]));
  });

  test('the same internal events as the legacy routes (processor.created, .updated, .version.published)', async () => {
    const seen: string[] = [];
    const off = sandbox().sb.onEvent((e) => seen.push(e.type));
    const e = await call<Json>('POST', '/classifiers', { name: 'ev', config: CLASSIFY_26 });
    await call('POST', `/classifiers/${String(e.body.id)}`, { name: 'ev2' });
    await call('POST', `/classifiers/${String(e.body.id)}/versions`, { releaseType: 'major' });
    off();
    expect(seen).toEqual(['processor.created', 'processor.updated', 'processor.version.published']);
  });
});

describe('bad input on the wire', () => {
  test('an id of another kind or family is a 404 naming the right route', async () => {
    const cl = await call<Json>('POST', '/classifiers', { name: 'c', config: CLASSIFY_26 });
    const clId = cl.body.id as string;
    const r = await call<Json>('GET', `/extractors/${clId}`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'NOT_FOUND', retryable: false });
    expect(r.body.message).toContain(`use /classifiers/${clId}`);
    const dp = await createProcessor(sandbox(), 'CLASSIFY', CLASSIFY_CONFIG);
    const r2 = await call<Json>('GET', `/extractors/${dp}/versions`);
    expect(r2.status).toBe(404);
    expect(r2.body.message).toContain(`${dp} is a classifier; use /classifiers/${dp}`);
    const r3 = await call<Json>('GET', '/splitters/cl_doesnotexist');
    expect(r3.status).toBe(404);
    expect(r3.body.message).toContain('cl_ ids are classifiers');
    const r4 = await call<Json>('GET', '/extractors/dp_doesnotexist');
    expect(r4.status).toBe(404);
    expect(r4.body.message).toBe('extractor dp_doesnotexist not found');
    // A version of another extractor is not found under this one.
    const a = await call<Json>('POST', '/extractors', { name: 'a' });
    const b = await call<Json>('POST', '/extractors', { name: 'b' });
    const r5 = await call<Json>('GET', `/extractors/${String(a.body.id)}/versions/${String((b.body.draftVersion as Json).id)}`);
    expect(r5.status).toBe(404);
  });

  test('a 2025-04-21 body is a 400 naming the member and the 2026-02-09 way', async () => {
    const typed = await call<Json>('POST', '/extractors', { name: 'x', config: INVOICE_CONFIG });
    expect(typed.status).toBe(400);
    expect(typed.body.message).toContain('/config/type');
    const parser = await call<Json>('POST', '/extractors', { name: 'x', config: { schema: INVOICE_CONFIG.schema, parser: { target: 'markdown' } } });
    expect(parser.status).toBe(400);
    expect(parser.body.message).toContain('/config/parser');
    const fpl = await call<Json>('POST', '/classifiers', { name: 'x', config: { ...CLASSIFY_26, advancedOptions: { fixedPageLimit: 2 } } });
    expect(fpl.status).toBe(400);
    expect(fpl.body.message).toContain('fixedPageLimit');
    const topType = await call<Json>('POST', '/splitters', { name: 'x', type: 'SPLITTER', config: SPLIT_26 });
    expect(topType.status).toBe(400);
    expect(topType.body.message).toMatch(/type is not a member of splitter bodies in 2026-02-09: the route \/splitters says the type/);
    const clone = await call<Json>('POST', '/extractors', { name: 'x', cloneProcessorId: 'dp_x' });
    expect(clone.status).toBe(400);
    expect(clone.body.message).toContain('send cloneExtractorId');
    const upd = await call<Json>('POST', '/extractors/ex_x', { config: INVOICE_CONFIG });
    expect(upd.status).toBe(404);
    // The reverse: a 2026-02-09 config on the legacy route of 2025-04-21 callers.
    const legacy = await sandbox().call<Json>('POST', '/processors', { body: { name: 'x', type: 'EXTRACT', config: { schema: INVOICE_CONFIG.schema, parseConfig: { target: 'markdown', engine: 'parse_light' } } } });
    expect(legacy.status).toBe(400);
    expect(legacy.body.success).toBe(false);
  });

  test('oversized pages, bad sorts and bad cursors are 400s that say what to change', async () => {
    const big = await call<Json>('GET', '/extractors?maxPageSize=5000');
    expect(big.status).toBe(400);
    expect(big.body.message).toBe('maxPageSize must be an integer from 1 to 1000');
    const sort = await call<Json>('GET', '/classifiers?sortBy=name');
    expect(sort.status).toBe(400);
    expect(sort.body.message).toBe('sortBy must be one of createdAt, updatedAt');
    const cursor = await call<Json>('GET', '/splitters?nextPageToken=garbage');
    expect(cursor.status).toBe(400);
    expect(cursor.body.message).toMatch(/nextPageToken is not a token/);
    const p1 = await call<Json>('GET', '/extractors?maxPageSize=1');
    const mixed = await call<Json>('GET', `/extractors?maxPageSize=1&sortDir=asc&nextPageToken=${String(p1.body.nextPageToken)}`);
    expect(mixed.status).toBe(400);
    expect(mixed.body.message).toMatch(/another sortBy\/sortDir/);
  });

  test('a cursor is signed and tied to its list: altered, forged or borrowed tokens are 400s', async () => {
    const p1 = await call<Json>('GET', '/extractors?maxPageSize=1');
    const token = String(p1.body.nextPageToken);
    expect(token).toMatch(/^[\w-]+\.[\w-]+$/);
    expect((await call<Json>('GET', `/extractors?maxPageSize=1&nextPageToken=${token}`)).status).toBe(200);
    // The cursor's row moved by hand, its signature kept: not a token the sandbox issued.
    const [body, sig] = token.split('.');
    const cursor = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown[];
    cursor[3] = 0;
    const altered = `${Buffer.from(JSON.stringify(cursor)).toString('base64url')}.${sig}`;
    // A cursor of the old, unsigned form (as a client may have kept one).
    const unsigned = Buffer.from(JSON.stringify(cursor.slice(0, 4))).toString('base64url');
    for (const bad of [altered, unsigned, `${body}.`, `.${sig}`]) {
      const r = await call<Json>('GET', `/extractors?maxPageSize=1&nextPageToken=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toMatch(/^nextPageToken is not a token this sandbox issued/);
    }
    // The same sort on another list, or the same list with another filter.
    for (const other of ['/classifiers?maxPageSize=1', '/extractors?maxPageSize=1&nameContains=x']) {
      const r = await call<Json>('GET', `${other}&nextPageToken=${token}`);
      expect(r.status, other).toBe(400);
      expect(r.body.message).toMatch(/another list/);
    }
  });

  test('the 2026-02-09 routes are not served to 2025-04-21 callers', async () => {
    const r = await sandbox().call<Json>('GET', '/extractors');
    expect(r.status).toBe(404);
    expect(r.body.success).toBe(false);
  });
});

describe('scoped tokens', () => {
  test('a token scoped to some processors sees only those on the 2026-02-09 routes (403 before 404)', async () => {
    const mine = seededIds('scope')('extractor');
    const s = await start({ idSeed: 'scope', tokens: [{ token: 'sk_all_1111111111', createdAt: '2026-03-01' }, { token: 'sk_scoped_111111', createdAt: '2026-03-01', processors: [mine] }] });
    try {
      const as = (token: string) => <T = Json>(method: string, path: string, body?: unknown) => s.call<T>(method, path, { version: V26, token, ...(body === undefined ? {} : { body }) });
      const all = as('sk_all_1111111111');
      const scoped = as('sk_scoped_111111');
      const a = await all<Json>('POST', '/extractors', { name: 'mine' });
      expect(a.body.id).toBe(mine);
      const b = await all<Json>('POST', '/extractors', { name: 'other' });
      const list = await scoped<Json>('GET', '/extractors');
      expect((list.body.data as Json[]).map((e) => e.id)).toEqual([mine]);
      expect((await scoped<Json>('GET', `/extractors/${mine}`)).status).toBe(200);
      const other = await scoped<Json>('GET', `/extractors/${String(b.body.id)}`);
      expect(other.status).toBe(403);
      expect(other.body).toMatchObject({ code: 'FORBIDDEN' });
      expect((await scoped<Json>('GET', '/extractors/ex_unknown')).status).toBe(403);
      expect((await scoped<Json>('POST', '/evaluation_sets', { name: 'x', entityId: b.body.id })).status).toBe(403);
      // It could not use what it made (a `processors create` run again would make another): creating needs a workspace-wide token.
      const made = await scoped<Json>('POST', '/extractors', { name: 'made' });
      expect(made.status).toBe(403);
      expect(made.body).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('creating an extractor needs a workspace-wide API token') });
      const legacy = await s.call<Json>('POST', '/processors', { token: 'sk_scoped_111111', version: '2025-04-21', body: { name: 'made', type: 'EXTRACT' } });
      expect(legacy.status).toBe(403);
      expect((await all<Json>('GET', '/extractors')).body.data).toHaveLength(2);
    } finally {
      await s.close();
    }
  });
});

describe('createdBy of versions: the token that created the processor or published the version (either API version)', () => {
  test('draft by the creator, published versions by their publisher, on /extractors, /processors and in run answers', async () => {
    const s = await start({ tokens: [{ token: 'tok-alice-0123456789', name: 'alice', createdAt: '2026-01-01' }, { token: 'tok-bob-0123456789ab', name: 'bob', createdAt: '2026-01-01' }] });
    try {
      const as = (token: string) => <T = Json>(method: string, path: string, body?: unknown, version = V26) => s.call<T>(method, path, { token, version, ...(body === undefined ? {} : { body }) });
      const alice = as('tok-alice-0123456789');
      const bob = as('tok-bob-0123456789ab');
      const e = await alice<Json>('POST', '/extractors', { name: 'by alice', config: EXTRACT_26 });
      expect((e.body.draftVersion as Json).createdBy).toEqual({ type: 'api_key', name: 'alice' });
      const v1 = await bob<Json>('POST', `/extractors/${String(e.body.id)}/versions`, { releaseType: 'major' });
      expect(v1.body.createdBy).toEqual({ type: 'api_key', name: 'bob' });
      const rows = (await alice<Json>('GET', `/extractors/${String(e.body.id)}/versions`)).body.data as Json[];
      expect(rows.map((r) => [r.version, (r.createdBy as Json).name])).toEqual([['draft', 'alice'], ['1.0', 'bob']]);
      // A processor made and published on the 2025-04-21 routes is attributed the same way.
      const dp = await bob<{ processor: { id: string } }>('POST', '/processors', { name: 'legacy', type: 'CLASSIFY', config: CLASSIFY_CONFIG }, '2025-04-21');
      await alice('POST', `/processors/${dp.body.processor.id}/publish`, { releaseType: 'major' }, '2025-04-21');
      const cl = await alice<Json>('GET', `/classifiers/${dp.body.processor.id}/versions`);
      expect((cl.body.data as Json[]).map((r) => [r.version, (r.createdBy as Json).name])).toEqual([['draft', 'bob'], ['1.0', 'alice']]);
      // Runs show the version summary with it.
      const run = await alice<Json>('POST', '/extract_runs', { extractor: { id: e.body.id, version: '1.0' }, file: { text: 'Invoice number: 7' } });
      expect((run.body.extractorVersion as Json).createdBy).toEqual({ type: 'api_key', name: 'bob' });
      // Evaluation sets and items likewise, whichever version's route made them.
      const set = await bob<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { name: 'set', description: 'd', processorId: dp.body.processor.id }, '2025-04-21');
      expect((await alice<Json>('GET', `/evaluation_sets/${set.body.evaluationSet.id}`)).body.createdBy).toEqual({ type: 'api_key', name: 'bob' });
    } finally {
      await s.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import type { Client, ProcessorVersion } from '../../src/api/index.js';
import { configFromEnvelope, fetchProcessorConfig } from '../../src/expected/source.js';
import { InputError } from '../../src/util/errors.js';
import { CLASSIFY_OLD, EXTRACT_NEW, SPLITTER_OLD } from './configs.js';

const { type: _drop, ...untypedSplitter } = SPLITTER_OLD;

describe('configFromEnvelope', () => {
  it.each([
    ['a bare config', EXTRACT_NEW, EXTRACT_NEW, 'EXTRACT'],
    ['a processor with a draft', { object: 'document_processor', id: 'dp_1', name: 'n', type: 'CLASSIFY', draftVersion: { id: 'dpv_1', version: 'draft', config: CLASSIFY_OLD } }, CLASSIFY_OLD, 'CLASSIFY'],
    ['a processor version', { object: 'document_processor_version', id: 'dpv_1', processorType: 'SPLITTER', version: '1.0', config: untypedSplitter }, untypedSplitter, 'SPLITTER'],
    ['an API response', { success: true, version: { object: 'document_processor_version', processorType: 'EXTRACT', version: '1.0', config: EXTRACT_NEW } }, EXTRACT_NEW, 'EXTRACT'],
    ['a publish request body', { releaseType: 'minor', config: CLASSIFY_OLD }, CLASSIFY_OLD, 'CLASSIFY'],
    ['a run request body', { processorId: 'dp_1', rawText: 'x', config: EXTRACT_NEW }, EXTRACT_NEW, 'EXTRACT'],
  ])('reads %s', (_n, value, config, type) => {
    const s = configFromEnvelope(value, 'cfg.json');
    expect(s.config).toEqual(config);
    expect(s.type).toBe(type);
    expect(s.origin).toBe('cfg.json');
  });

  it('accepts unknown config keys (validate and schema read the config, they send nothing): the envelope and its layout are read as without them', () => {
    const extractor = { object: 'extractor', id: 'ex_1', draftVersion: { object: 'extractor_version', config: { schema: { type: 'object' }, extractonRules: 'x', advancedOptions: { futureOption: true } } } };
    const s = configFromEnvelope(extractor, 'cfg.json');
    expect(s).toMatchObject({ type: 'EXTRACT', layout: '2026-02-09', config: extractor.draftVersion.config });
  });

  it.each([
    ['an array', { object: 'processor', type: 'CLASSIFY', draftVersion: { config: [1] } }, '/draftVersion/config', 'got an array'],
    ['a string', { config: 'x', type: 'EXTRACT' }, '/config', 'got string'],
    ['null', { processorId: 'dp_1', config: null }, '/config', 'got null'],
  ])('refuses an envelope whose config is %s, naming its pointer (it was read as a bare config)', (_n, value, pointer, what) => {
    expect(() => configFromEnvelope(value, 'cfg.json')).toThrow(expect.objectContaining({ message: `a processor config must be a JSON object, ${what}`, location: { file: 'cfg.json', pointer } }));
  });

  it('refuses a file holding several configs', () => {
    expect(() => configFromEnvelope([EXTRACT_NEW, CLASSIFY_OLD], 'cfg.json')).toThrow(/found 2/);
  });

  it('asks for the type when nothing settles it, naming the file', () => {
    let caught: unknown;
    try {
      configFromEnvelope({ baseVersion: '1' }, 'cfg.json');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as InputError).location.file).toBe('cfg.json');
    expect((caught as InputError).hint).toContain('--type');
  });
});

function fakeClient(versions: Array<Omit<Partial<ProcessorVersion>, 'config'> & { config?: unknown }>): Client {
  const full = versions.map((v) => ({ object: 'document_processor_version', id: `dpv_${v.version}`, processorId: 'dp_1', processorType: 'EXTRACT', config: EXTRACT_NEW, createdAt: '', updatedAt: '', ...v }));
  return {
    processors: {
      async listVersions(_id: string, params: { nextPageToken?: string } = {}) {
        // Two pages, to exercise paging.
        return params.nextPageToken ? { items: full.slice(1), nextPageToken: null } : { items: full.slice(0, 1), nextPageToken: 'p2' };
      },
      async getVersion(_p: string, id: string) {
        const v = full.find((x) => x.id === id);
        if (!v) throw new Error('404');
        return v;
      },
    },
  } as unknown as Client;
}

describe('fetchProcessorConfig', () => {
  const client = fakeClient([
    { version: 'draft', config: { ...EXTRACT_NEW, extractionRules: 'draft' } },
    { version: '1.0' },
    { version: '1.10', config: { ...EXTRACT_NEW, extractionRules: 'newest' } },
    { version: '1.2' },
  ]);

  it.each([
    [undefined, 'dp_1@1.10'],
    ['latest', 'dp_1@1.10'],
    ['draft', 'dp_1@draft'],
    ['1.2', 'dp_1@1.2'],
    ['1', 'dp_1@1.0'],
    ['dpv_1.0', 'dp_1@1.0'],
  ])('--version %s -> %s', async (version, origin) => {
    const s = await fetchProcessorConfig(client, 'dp_1', version);
    expect(s.origin).toBe(origin);
    expect(s.type).toBe('EXTRACT');
  });

  it('takes a 2026-02-09 version id (exv_, clv_, splv_) as a version id too', async () => {
    const s = await fetchProcessorConfig(fakeClient([{ version: 'draft' }, { version: '1.0', id: 'exv_9', config: { ...EXTRACT_NEW, extractionRules: 'by id' } }]), 'ex_1', 'exv_9');
    expect(s.origin).toBe('ex_1@1.0');
    expect(s.config.extractionRules).toBe('by id');
  });

  it('falls back to the draft when nothing is published', async () => {
    const s = await fetchProcessorConfig(fakeClient([{ version: 'draft' }]), 'dp_1');
    expect(s.origin).toBe('dp_1@draft');
  });

  it('names a version that does not exist', async () => {
    await expect(fetchProcessorConfig(client, 'dp_1', '9.9')).rejects.toThrow(/no version "9.9"/);
  });
});

import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { INVOICE_CONFIG, start } from './helpers.js';

/** Creates two processors and an evaluation set; returns their ids in order. */
async function script(idSeed?: string): Promise<string[]> {
  const s = await start(idSeed === undefined ? {} : { idSeed });
  try {
    const ids: string[] = [];
    for (const name of ['a', 'b']) {
      const r = await s.call<{ processor: { id: string } }>('POST', '/processors', { body: { name, type: 'EXTRACT', config: INVOICE_CONFIG } });
      ids.push(r.body.processor.id);
    }
    const set = await s.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 'set', processorId: ids[0] } });
    ids.push(set.body.evaluationSet.id);
    return ids;
  } finally {
    await s.close();
  }
}

describe('sandbox ids', () => {
  it('with an id seed, the same requests in the same order get the same ids', async () => {
    const one = await script('demo');
    expect(one[0]).toMatch(/^dp_[0-9A-Za-z]{20}$/);
    expect(one[2]).toMatch(/^ev_[0-9A-Za-z]{20}$/);
    expect(new Set(one).size).toBe(3);
    expect(await script('demo')).toEqual(one);
    expect(await script('other')).not.toEqual(one);
  });

  it('without a seed ids are random', async () => {
    expect(await script()).not.toEqual(await script());
  });

  it('refuses a seed with a data dir, whose restarts would mint the same ids again', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-ids-'));
    await expect(startSandbox({ port: 0, idSeed: 'x', dataDir })).rejects.toThrow(/seeded ids are for a sandbox in memory/);
  });
});

// Every function a usage page shows as `name(...)` is exported from the package's entry point (a
// page may show it only as a method of a client or of ops: those are named below). And every
// result type library.md says the client answers in can be imported.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as evalkit from '../../src/index.js';
import type { BatchRun, DatasetSettings, Entity, EntityVersion, EvalSet, EvalkitConfig, Run, SetItem, StoredFile } from '../../src/index.js';
import { ROOT } from '../helpers/cli.js';

/** Shown as methods (`client.processorRuns.waitFor(...)`, `ops.items().create(...)`), or not code of ours. */
const METHODS = new Set(['batch', 'create', 'createVersion', 'items', 'list', 'listAll', 'retrieve', 'runs', 'update', 'waitFor', 'idle', 'map', 'push']);

describe('the library surface the docs show', () => {
  it('each `name(` in docs/*.md is exported from src/index.ts, or is a method', () => {
    const docs = path.join(ROOT, 'docs');
    const missing: string[] = [];
    for (const f of readdirSync(docs).filter((n) => n.endsWith('.md'))) {
      for (const m of readFileSync(path.join(docs, f), 'utf8').matchAll(/`([a-z][A-Za-z0-9]*)\(/g)) {
        if (!METHODS.has(m[1]) && typeof (evalkit as Record<string, unknown>)[m[1]] !== 'function') missing.push(`${m[1]} (docs/${f})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the ids helpers behave as library.md says', () => {
    expect(evalkit.typeOfId('ex_1')).toBe('EXTRACT');
    expect(evalkit.typeOfId('dp_1')).toBeUndefined();
    expect(['dpv_1', 'exv_1', 'clv_1', 'splv_1'].every((id) => evalkit.isVersionId(id))).toBe(true);
    expect(evalkit.isVersionId('ex_1')).toBe(false);
  });

  it('the result types can be named by a caller', () => {
    // Compiles only if each is exported (the typecheck of the tests runs in `npm test`).
    const shapes: Array<Entity | EntityVersion | Run | BatchRun | StoredFile | EvalSet | SetItem | EvalkitConfig | DatasetSettings> = [];
    expect(shapes).toEqual([]);
  });
});

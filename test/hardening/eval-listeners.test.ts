import { afterAll, beforeAll, expect, test } from 'vitest';
import { runEvaluation } from '../../src/eval/index.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';
import { clientOf, seedSet, V2025, type SeededSet } from '../eval/helpers.js';

let t: TestSandbox;
let set: SeededSet;
beforeAll(async () => {
  t = await start({ engineDelayMs: 5 });
  set = await seedSet(t, 'CLASSIFY', 14, { publish: true });
});
afterAll(() => t.close());

test('per-item evaluation at concurrency 14 adds no MaxListenersExceededWarning', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    const ac = new AbortController();
    // Pinned: --strategy per-item (one processor run per item) exists on 2025-04-21 only.
    const r = await runEvaluation(clientOf(t, undefined, V2025), { evaluationSetId: set.setId, strategy: 'per-item', concurrency: 14, pollIntervalMs: 10, maxPollIntervalMs: 20 }, { signal: ac.signal });
    expect(r.counts.items).toBe(14);
    // Warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', onWarning);
  }
  expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
});

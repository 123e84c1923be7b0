import { describe, expect, it } from 'vitest';
import { computeReport, MemoryDocuments, renderExplorer, type BaselineInput } from '../../src/report/index.js';
import type { EvaluationExport } from '../../src/metrics/generated/export.js';
import { seededRandom } from '../../src/util/random.js';

/**
 * A CLASSIFY export of 2,000 classes and 20,000 documents, 80% right. Every class statistic
 * used to be a dense column over every document (6,000 columns of 20,000 doubles), resampled
 * as a table of 6,000 columns x 10,000 groups, compared with a baseline and drawn in the explorer
 * class by class per document: 48 s and 4.2 GB of memory with a baseline. Sparse (each document
 * touches at most two classes), the same report takes about 5 s. No timing assert: the test
 * timeout (30 s; the dense code took 49 s here) is the bound.
 */
function classifyExport(seed: number): EvaluationExport {
  const r = seededRandom(seed);
  const classes = Array.from({ length: 2000 }, (_, i) => ({ id: `cls_${i}`, type: `type_${i}`, description: `class ${i}` }));
  const pick = () => classes[Math.floor(r() * classes.length)];
  const items = Array.from({ length: 20_000 }, (_, d) => {
    const e = pick();
    const p = r() < 0.8 ? e : pick();
    return { id: `doc_${d}`, fileId: `file_${d}`, fileName: `d${d}.pdf`, expectedOutput: { id: e.id, type: e.type }, output: { id: p.id, type: p.type, confidence: 0.5 + r() / 2 }, status: 'PROCESSED' };
  });
  return {
    format: 'evalkit-export/1',
    processor: { id: 'dp_many', name: 'many classes', type: 'CLASSIFY', version: '1', config: { type: 'CLASSIFY', classifications: classes } },
    options: { fuzzyMatchFields: [], excludeFields: [] },
    items,
  } as unknown as EvaluationExport;
}

describe('a CLASSIFY report of 2,000 classes', () => {
  it('computes intervals and the comparison with a baseline, and draws the explorer, in seconds', () => {
    const exp = classifyExport(1);
    const baseline: BaselineInput = { kind: 'export', file: 'baseline.json', export: classifyExport(2) };
    const sink = new MemoryDocuments();
    const report = computeReport(exp, { seed: 1, sourceFile: 'many.json', baseline }, sink);
    expect(report.classify!.classes).toHaveLength(2000);
    expect(report.classify!.classes.every((c) => c.f1.interval !== null)).toBe(true);
    expect(report.baseline!.rows).toHaveLength(2005);
    const html = renderExplorer({ report, export: exp, baseline, documents: sink.records() });
    expect(html.length).toBeLessThan(20_000_000);
  }, 30_000);
});

// `npm run bench -- writeback`: the format-preserving rewrite of a dataset CSV (applyWriteBack),
// 20,000 rows with 200 of them corrected, against the floor of what any rewrite must do: read the
// CSV through the same streaming parser once and write the file atomically once.
// Last line: `writeback: N.NNx of parse+write floor`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openCsv } from '../dist/dataset/csv.js';
import { applyWriteBack } from '../dist/dataset/writeback.js';
import { writeFileAtomic } from '../dist/util/fs.js';

const ROWS = 20_000;
const EDITED = 200;
const ROUNDS = 5;
const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-bench-writeback-'));
const file = path.join(dir, 'data.csv');
const lines = ['file,invoice_number,total,vendor,# notes'];
for (let i = 0; i < ROWS; i++) lines.push(`files/doc-${i}.pdf,INV-${i},EUR ${i}.50,"Acme, Inc. ${i % 97}",${i % 5 === 0 ? '"a note\r\nover two lines"' : ''}`);
const text = lines.join('\r\n') + '\r\n';

async function floor() {
  const src = await openCsv(file);
  const out = [];
  for await (const r of src.records()) out.push(r.cells.join(','));
  await writeFileAtomic(file + '.floor', text);
}

/** The plan a corrections upload makes: every 100th row's total. */
async function plan() {
  const src = await openCsv(file);
  const edits = [];
  let n = 0;
  for await (const r of src.records()) if (n++ % (ROWS / EDITED) === 0) edits.push({ line: r.line, item: `evi_${n}`, cells: new Map([[2, `USD ${n}.75`]]) });
  return { csv: file, delimiter: ',', edits, unchanged: 0, appended: [], missing: [], problems: [], cellsChanged: edits.length };
}

const time = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const tF = [];
const tW = [];
for (let round = 0; round < ROUNDS; round++) {
  writeFileSync(file, text);
  const p = await plan();
  globalThis.gc?.();
  tF.push(await time(floor));
  globalThis.gc?.();
  tW.push(await time(() => applyWriteBack(p)));
}
rmSync(dir, { recursive: true, force: true });
const best = (xs) => Math.min(...xs);
const f = best(tF);
const w = best(tW);
console.log(`rows: ${ROWS.toLocaleString('en-US')} (${(text.length / 1e6).toFixed(1)} MB), ${EDITED} cells rewritten, best of ${ROUNDS} rounds`);
console.log(`parse + atomic write (floor): ${f.toFixed(1)} ms`);
console.log(`applyWriteBack:               ${w.toFixed(1)} ms`);
console.log(`writeback: ${(w / f).toFixed(2)}x of parse+write floor`);

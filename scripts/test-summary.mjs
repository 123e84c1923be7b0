// Prints vitest's result as the plain closing line CI reads: "N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.ci/vitest.json';
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
process.exitCode = r.numFailedTests > 0 || r.numPassedTests === 0 ? 1 : 0;

// The floor of bench/migrate.bench.mjs, run as its own process: the simplest honest copy of a
// folder of JSON files in one Node process, file after file, synchronously: list the folders,
// readFileSync, JSON.parse, JSON.stringify, writeFileSync. No migration, no checks, no temp
// file + rename, no fsync (evalkit's --out-dir copies are not fsynced either; see util/copies.ts).
//   node bench/migrate-floor.mjs SRC OUT
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [src, out] = process.argv.slice(2);
let n = 0;
const walk = (rel) => {
  mkdirSync(path.join(out, rel), { recursive: true });
  for (const e of readdirSync(path.join(src, rel), { withFileTypes: true })) {
    const r = path.join(rel, e.name);
    if (e.isDirectory()) walk(r);
    else if (e.name.endsWith('.json')) {
      writeFileSync(path.join(out, r), JSON.stringify(JSON.parse(readFileSync(path.join(src, r), 'utf8')), null, 2) + '\n');
      n++;
    }
  }
};
walk('');
process.stdout.write(`${n} copied\n`);

// `npm run bench` runs every benchmark; `npm run bench -- NAME [args]` runs bench/NAME.bench.mjs.
// Each benchmark prints its ratio against a floor measured in the same run as its last line.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const all = readdirSync(here).filter((f) => f.endsWith('.bench.mjs')).map((f) => f.replace(/\.bench\.mjs$/, '')).sort();
const [name, ...rest] = process.argv.slice(2);
if (name && !all.includes(name)) {
  console.error(`unknown benchmark "${name}"; available: ${all.join(', ') || '(none yet)'}`);
  process.exit(2);
}
let failed = 0;
for (const b of name ? [name] : all) {
  console.log(`# bench ${b}`);
  const r = spawnSync(process.execPath, ['--expose-gc', path.join(here, `${b}.bench.mjs`), ...rest], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;

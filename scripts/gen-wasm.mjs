// `npm run gen:wasm` compiles src/metrics/wasm/resample.wat (the group bootstrap's inner loop,
// WebAssembly SIMD) with wabt and writes the module's bytes, base64, to
// src/metrics/generated/resample-wasm.ts. `node scripts/gen-wasm.mjs --check` writes nothing and
// exits 1 when the file is stale (test/metrics/bootstrap-wasm.test.ts runs it).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = 'src/metrics/wasm/resample.wat';
const OUT = 'src/metrics/generated/resample-wasm.ts';

export async function generate() {
  const wabt = await wabtInit();
  const module = wabt.parseWat(SOURCE, await readFile(path.join(ROOT, SOURCE), 'utf8'), { simd: true });
  try {
    module.validate();
    const { buffer } = module.toBinary({});
    const base64 = Buffer.from(buffer).toString('base64');
    return `/* Generated from ${SOURCE} by scripts/gen-wasm.mjs (npm run gen:wasm). Do not edit. */\nexport const RESAMPLE_WASM = '${base64}';\n`;
  } finally {
    module.destroy();
  }
}

async function main(args) {
  const want = await generate();
  const file = path.join(ROOT, OUT);
  const have = await readFile(file, 'utf8').catch(() => null);
  if (have === want) return;
  if (args.includes('--check')) {
    console.error(`${OUT} is stale: run npm run gen:wasm`);
    process.exitCode = 1;
    return;
  }
  await writeFile(file, want);
  console.log(`wrote ${OUT}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));

// `npm run gen:wasm` compiles src/metrics/wasm/resample.wat (the group bootstrap's inner loop,
// WebAssembly SIMD) with wabt and writes the module's bytes, base64, to
// src/metrics/generated/resample-wasm.ts. `node scripts/gen-wasm.mjs --check` writes nothing and
// exits 1 when the file is stale (test/metrics/bootstrap-wasm.test.ts runs it).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';
import { writeGenerated } from './generated-file.mjs';

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
  await writeGenerated(ROOT, OUT, await generate(), args.includes('--check'), 'npm run gen:wasm');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));

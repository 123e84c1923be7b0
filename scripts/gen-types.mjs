// `npm run gen:types` writes the TypeScript types generated from the JSON Schemas in schemas/.
// `node scripts/gen-types.mjs --check [OUT...]` writes nothing and exits 1 when a generated file
// (all, or the ones named) differs from what the schema gives; the staleness tests use it.
// To add a schema, add one line to TARGETS.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const TARGETS = [
  { schema: 'schemas/export.schema.json', out: 'src/metrics/generated/export.ts' },
  { schema: 'schemas/report.schema.json', out: 'src/metrics/generated/report.ts' },
  { schema: 'schemas/config-2024-11-14.schema.json', out: 'src/config/generated/config-2024-11-14.ts' },
  { schema: 'schemas/config-2025-04-21.schema.json', out: 'src/config/generated/config-2025-04-21.ts' },
  { schema: 'schemas/config-2026-02-09.schema.json', out: 'src/config/generated/config-2026-02-09.ts' },
  { schema: 'schemas/history-entry.schema.json', out: 'src/history/generated/history-entry.ts' },
  { schema: 'schemas/evalkit-config.schema.json', out: 'src/settings/generated/evalkit-config.ts' },
];

export async function generate(target) {
  const schema = JSON.parse(await readFile(path.join(ROOT, target.schema), 'utf8'));
  const ts = await compile(schema, schema.title ?? path.basename(target.schema), {
    bannerComment: `/* Generated from ${target.schema} by scripts/gen-types.mjs (npm run gen:types). Do not edit. */`,
    additionalProperties: false,
    unreachableDefinitions: true,
    cwd: path.join(ROOT, path.dirname(target.schema)),
  });
  return ts;
}

async function main(args) {
  const check = args.includes('--check');
  const only = args.filter((a) => !a.startsWith('--'));
  const targets = only.length ? TARGETS.filter((t) => only.includes(t.out)) : TARGETS;
  let stale = 0;
  for (const t of targets) {
    const want = await generate(t);
    const file = path.join(ROOT, t.out);
    const have = await readFile(file, 'utf8').catch(() => null);
    if (have === want) continue;
    if (check) {
      console.error(`${t.out} is stale: run npm run gen:types`);
      stale++;
    } else {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, want);
      console.error(`wrote ${t.out}`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));

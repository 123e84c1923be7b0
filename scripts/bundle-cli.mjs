// `npm run build`'s second step: the `evalkit` command (dist/cli/index.js) as one bundle of the
// sources and its pure-JavaScript dependencies, in place of the module tsc wrote there.
//
// Why: Node 20 loads an ES module graph file by file (resolve, read, compile, link), and the
// command's graph is some 300 files, about 160 of them zod's and ajv's. Every run paid for it
// before doing anything: `evalkit processors create` took 1.10 s of CPU, 0.88 s bundled
// (docs/benchmarks.md, "CLI start-up"). The library (dist/index.js and the rest of dist/) stays
// tsc's output, file for file.
//
// The bundle sits where tsc's module was, so every path the code builds from import.meta.url
// (`../../package.json`, `../../schemas/...`, the demo's data) resolves as before; its chunks
// (one per command, loaded when the command runs) are dist/cli/evalkit-<hash>.js, and the
// chunks of the build before are removed first. Packages that load files of their own at run
// time (pdfjs-dist's worker and fonts, better-sqlite3's native module, yargs' locales) and the
// large ones few commands need stay external: imported from node_modules as before.
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist', 'cli');

/** Bundled: pure JavaScript, no files read at run time, on the path of most commands. */
const BUNDLED = new Set([
  'zod',
  'ajv',
  'fast-deep-equal',
  'fast-uri',
  'json-schema-traverse',
  'fast-json-patch',
  'csv-parse',
  'p-limit',
  'p-queue',
  'yocto-queue',
  'eventemitter3',
  'fastest-levenshtein',
  'munkres',
]);
const packageOf = (id) => (id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]);

for (const f of readdirSync(outDir)) if (/^evalkit-.*\.js(\.map)?$/.test(f)) rmSync(path.join(outDir, f));

await build({
  cwd: root,
  input: path.join(root, 'src', 'cli', 'index.ts'),
  platform: 'node',
  external: (id) => {
    if (id.startsWith('node:')) return true;
    if (id.startsWith('.') || path.isAbsolute(id) || id.startsWith('\0')) return false;
    return !BUNDLED.has(packageOf(id));
  },
  output: {
    dir: outDir,
    format: 'esm',
    entryFileNames: 'index.js',
    chunkFileNames: 'evalkit-[hash].js',
    sourcemap: true,
  },
  onLog(level, log, handle) {
    // A module both imported and dynamically imported stays in the importer's chunk: expected.
    if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
    handle(level, log);
  },
});

// `npm test`'s checks before the tests: the build (tsc, then the CLI's bundle: the tests run
// dist/), the typecheck (src, test,
// bench, scripts) and the lint, side by side: each is one process on one core, and CI machines
// have two. Each one's output is printed whole when it ends, under its name; the exit code is
// the first failure's (0 when all pass).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const CHECKS = [
  ['build', 'sh', ['-c', `"${bin('tsc')}" -p tsconfig.build.json && "${process.execPath}" scripts/bundle-cli.mjs`]],
  ['typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['lint', bin('eslint'), ['.']],
];

const run = ([name, cmd, args]) =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (e) => resolve({ name, code: 1, text: `${e.message}\n`, ms: Date.now() - started }));
    child.on('close', (code) => resolve({ name, code: code ?? 1, text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started }));
  });

const results = await Promise.all(CHECKS.map(run));
let exit = 0;
for (const r of results) {
  process.stdout.write(`> ${r.name}: ${r.code === 0 ? 'ok' : `failed (exit ${r.code})`} in ${(r.ms / 1000).toFixed(1)} s\n${r.text}`);
  if (r.code !== 0 && exit === 0) exit = r.code;
}
process.exit(exit);

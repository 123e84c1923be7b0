// Start-up of the CLI: `evalkit --version`, `evalkit migrate --help`, `evalkit --help` and
// `evalkit processors list` (one request to an `evalkit sandbox` started for it: the API client,
// its models and the config layouts loaded, as every command that talks to the service does),
// each run as a fresh process, against the floor of a bare `node -e 0`. Runs are interleaved (one of
// each per round) so that load on the machine hits them alike; the best of the rounds counts.
// Prints each command's best time and, last, `evalkit --version` as a ratio of the floor.
//
// Usage: npm run bench -- startup [--rounds N] [--bin dist/cli/index.js]
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { numFlag, strFlag } from './args.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROUNDS = numFlag('rounds', 20);
const bin = path.resolve(strFlag('bin', path.join(here, '..', 'dist', 'cli', 'index.js')));

const sandbox = spawn(process.execPath, [bin, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const service = await new Promise((resolve, reject) => {
  let text = '';
  sandbox.on('exit', (code) => reject(new Error(`evalkit sandbox exited ${code}:\n${text}`)));
  sandbox.stdout.setEncoding('utf8').on('data', (d) => {
    text += d;
    const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
    const token = /dev token: (\S+)/.exec(text)?.[1];
    if (url && token) resolve({ ...process.env, EVALKIT_BASE_URL: url, EVALKIT_API_TOKEN: token });
  });
});

const cases = [
  ['node -e 0 (floor)', ['-e', '0']],
  ['evalkit --version', [bin, '--version']],
  ['evalkit migrate --help', [bin, 'migrate', '--help']],
  ['evalkit --help', [bin, '--help']],
  ['evalkit processors list', [bin, 'processors', 'list'], service],
];
const best = cases.map(() => Infinity);
for (let r = 0; r < ROUNDS; r++) {
  cases.forEach(([name, args, env], i) => {
    const t0 = process.hrtime.bigint();
    const res = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 0) throw new Error(`${name} exited ${res.status}: ${res.stderr}`);
    best[i] = Math.min(best[i], ms);
  });
}
cases.forEach(([name], i) => console.log(`${name.padEnd(24)} ${best[i].toFixed(0)} ms (best of ${ROUNDS})`));
sandbox.removeAllListeners('exit');
sandbox.kill();
console.log(`startup: evalkit --version ${(best[1] / best[0]).toFixed(2)}x of the node floor (migrate --help ${(best[2] / best[0]).toFixed(2)}x, processors list ${(best[4] / best[0]).toFixed(2)}x)`);

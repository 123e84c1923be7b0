// Client overhead: 5,000 GET /processor_runs/:id at concurrency 32 against the sandbox, in the
// same run and interleaved block by block, through
// - the evalkit client (auth, version header, retry bookkeeping, timeout, zod parsing),
// - the service's official SDK (npm extend-ai, a devDependency) pointed at the sandbox with only
//   baseUrl and token, as a user would otherwise call the service,
// - bare fetch + res.json() (the floor).
// Prints the sandbox's requests per second and, last, the client's wall time as ratios of bare
// fetch (target <= 1.2x) and of the SDK (target < 1x).
//
// The sandbox runs in a child process by default so that its CPU does not share the event loop
// with the code being measured; `--in-process` starts it in this process instead.
//
// Usage: npm run bench -- client [--requests N] [--concurrency N] [--rounds N] [--in-process]
import { spawn } from 'node:child_process';
import { hasFlag, numFlag } from './args.mjs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'dist');
const REQUESTS = numFlag('requests', 5000);
const CONCURRENCY = numFlag('concurrency', 32);
const ROUNDS = numFlag('rounds', 3);
const inProcess = hasFlag('in-process');

const { createClient } = await import(pathToFileURL(path.join(dist, 'api', 'index.js')).href);
const { ExtendClient } = await import('extend-ai');
const sandboxModule = pathToFileURL(path.join(dist, 'sandbox', 'index.js')).href;

async function startInChild() {
  const code = `
    const { startSandbox } = await import(${JSON.stringify(sandboxModule)});
    const s = await startSandbox({ port: 0, host: '127.0.0.1' });
    process.stdout.write(JSON.stringify({ url: s.url, token: s.token }) + '\\n');
    process.stdin.resume();
    process.stdin.on('end', async () => { await s.close(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const info = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
    });
    child.on('exit', (code) => reject(new Error(`sandbox child exited with ${code} before it started`)));
  });
  return {
    ...info,
    close: () => new Promise((resolve) => {
      child.once('exit', resolve);
      child.stdin.end();
      setTimeout(() => child.kill(), 5000).unref();
    }),
  };
}

async function startHere() {
  const { startSandbox } = await import(sandboxModule);
  return startSandbox({ port: 0, host: '127.0.0.1' });
}

/** Runs `n` calls of `fn` with `concurrency` workers; returns wall milliseconds. */
async function timed(n, concurrency, fn) {
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < n) {
      next++;
      await fn();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - start;
}

const sandbox = inProcess ? await startHere() : await startInChild();
try {
  const client = createClient({ baseUrl: sandbox.url, token: sandbox.token });
  const processor = await client.processors.create({
    name: 'bench invoices',
    type: 'EXTRACT',
    config: { type: 'EXTRACT', schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } } },
  });
  const created = await client.processorRuns.create({ processorId: processor.id, version: 'draft', rawText: 'Invoice INV-42, total 1,234.50 EUR' });
  await client.processorRuns.waitFor(created.id, { timeoutMs: 10_000, intervalMs: 50 }).catch(() => undefined);

  const url = `${sandbox.url}/processor_runs/${created.id}`;
  const headers = { authorization: `Bearer ${sandbox.token}`, 'x-service-api-version': '2025-04-21' };
  const bare = async () => {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`bare fetch got ${res.status}`);
    await res.json();
  };
  const viaClient = () => client.processorRuns.get(created.id);
  const sdk = new ExtendClient({ baseUrl: sandbox.url, token: sandbox.token });
  const viaSdk = async () => {
    const r = await sdk.processorRun.get(created.id);
    if (r.processorRun?.id !== created.id) throw new Error('the SDK got another run');
  };
  const sides = { bare, client: viaClient, sdk: viaSdk };
  const names = Object.keys(sides);

  // Warm up every path (JIT, keep-alive sockets, zod's compiled parsers).
  for (const n of names) await timed(500, CONCURRENCY, sides[n]);

  // Each round sends REQUESTS per side in blocks of BLOCK, the sides taking turns block by block
  // (in a rotating order), so that load from other processes on the machine falls on all alike.
  const BLOCK = Math.min(500, REQUESTS);
  const ms = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const sum = Object.fromEntries(names.map((n) => [n, 0]));
    for (let done = 0, k = 0; done < REQUESTS; done += BLOCK, k++) {
      const n = Math.min(BLOCK, REQUESTS - done);
      for (let j = 0; j < names.length; j++) {
        const name = names[(j + k + r) % names.length];
        sum[name] += await timed(n, CONCURRENCY, sides[name]);
      }
    }
    for (const n of names) ms[n].push(sum[n]);
  }
  const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;
  const b = mean(ms.bare);
  const c = mean(ms.client);
  const k = mean(ms.sdk);
  console.log(`rounds (ms): ${names.map((n) => `${n} ${ms[n].map(Math.round).join(' ')}`).join('; ')}`);
  console.log(`requests: ${REQUESTS} GET /processor_runs/:id per side x ${ROUNDS} rounds, concurrency ${CONCURRENCY}, blocks of ${BLOCK} taking turns, sandbox ${inProcess ? 'in-process' : 'in a child process'}`);
  console.log(`bare fetch: ${b.toFixed(0)} ms mean per ${REQUESTS} (${Math.round((REQUESTS / b) * 1000)} sandbox requests/s)`);
  console.log(`SDK:        ${k.toFixed(0)} ms mean per ${REQUESTS} (${Math.round((REQUESTS / k) * 1000)} requests/s; extend-ai)`);
  console.log(`client:     ${c.toFixed(0)} ms mean per ${REQUESTS} (${Math.round((REQUESTS / c) * 1000)} requests/s)`);
  console.log(`client: ${(c / b).toFixed(2)}x of bare fetch (target <= 1.2x); ${(c / k).toFixed(2)}x of the SDK (target < 1x)`);
} finally {
  await sandbox.close();
}

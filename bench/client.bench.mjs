// Client overhead: GET of one run, 5,000 times at concurrency 32 against the sandbox, in the
// same run and interleaved block by block, on both API versions:
// - 2025-04-21: GET /processor_runs/:id through the evalkit client, the service's official SDK
//   0.0.12 (npm extend-ai) and bare fetch;
// - 2026-02-09: GET /extract_runs/:id through the evalkit client on 2026-02-09, the SDK 1.17
//   (the devDependency alias extend-ai-1) and bare fetch with x-extend-api-version.
// The evalkit client does auth, the version header, retry bookkeeping, a timeout and zod parsing;
// each SDK is pointed at the sandbox with only baseUrl and token, as a user would call the
// service otherwise; bare fetch + res.json() is the floor.
// All go through Node's global fetch and its default undici dispatcher (one keep-alive pool, same
// settings); the client and the SDKs each arm a timeout per request, bare fetch none.
// Prints the sandbox's requests per second per side and, last, the client's wall time as ratios
// of bare fetch (target <= 1.2x) and of the SDK (target < 1x), per API version.
//
// The sandbox runs in a child process by default so that its CPU does not share the event loop
// with the code being measured; `--in-process` starts it in this process instead.
//
// Usage: npm run bench -- client [--requests N] [--concurrency N] [--rounds N] [--in-process]
//        [--api-version 2025-04-21|2026-02-09|both]   (default both)
import { spawn } from 'node:child_process';
import { hasFlag, numFlag, strFlag } from './args.mjs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'dist');
const REQUESTS = numFlag('requests', 5000);
const CONCURRENCY = numFlag('concurrency', 32);
const ROUNDS = numFlag('rounds', 3);
const inProcess = hasFlag('in-process');
const VERSIONS = { '2025-04-21': ['2025-04-21'], '2026-02-09': ['2026-02-09'], both: ['2025-04-21', '2026-02-09'] }[strFlag('api-version', 'both')];
if (!VERSIONS) {
  console.error('--api-version must be 2025-04-21, 2026-02-09 or both');
  process.exit(2);
}

const { createClient } = await import(pathToFileURL(path.join(dist, 'api', 'index.js')).href);
const { ExtendClient } = await import('extend-ai');
const { ExtendClient: ExtendClient1 } = await import('extend-ai-1');
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

/** The 2025-04-21 sides: GET /processor_runs/:id. */
async function sides2025(sandbox) {
  const client = createClient({ baseUrl: sandbox.url, token: sandbox.token, apiVersion: '2025-04-21' });
  const processor = await client.processors.create({
    name: 'bench invoices',
    type: 'EXTRACT',
    config: { type: 'EXTRACT', schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } } },
  });
  const created = await client.processorRuns.create({ processorId: processor.id, version: 'draft', rawText: 'Invoice INV-42, total 1,234.50 EUR' });
  await client.processorRuns.waitFor(created.id, { timeoutMs: 10_000, intervalMs: 50 }).catch(() => undefined);

  const url = `${sandbox.url}/processor_runs/${created.id}`;
  const headers = { authorization: `Bearer ${sandbox.token}`, 'x-service-api-version': '2025-04-21' };
  const sdk = new ExtendClient({ baseUrl: sandbox.url, token: sandbox.token });
  return {
    bare: async () => {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`bare fetch got ${res.status}`);
      await res.json();
    },
    client: () => client.processorRuns.get(created.id),
    sdk: async () => {
      const r = await sdk.processorRun.get(created.id);
      if (r.processorRun?.id !== created.id) throw new Error('the SDK got another run');
    },
  };
}

/** The 2026-02-09 sides: GET /extract_runs/:id of a PROCESSED run (output, config, file, usage). */
async function sides2026(sandbox) {
  const client = createClient({ baseUrl: sandbox.url, token: sandbox.token, apiVersion: '2026-02-09' });
  const extractor = await client.extractors.create({
    name: 'bench invoices 2026',
    config: { schema: { type: 'object', properties: { invoice_number: { type: ['string', 'null'] }, total: { type: ['number', 'null'] } } } },
  });
  const created = await client.extractRuns.create({ extractor: { id: extractor.id }, file: { text: 'Invoice INV-42, total 1,234.50 EUR', name: 'inv-42.txt' } });
  const done = await client.extractRuns.waitFor(created.id, { timeoutMs: 10_000, intervalMs: 50 });
  if (done.status !== 'PROCESSED') throw new Error(`the bench run ended ${done.status}`);

  const url = `${sandbox.url}/extract_runs/${created.id}`;
  const headers = { authorization: `Bearer ${sandbox.token}`, 'x-extend-api-version': '2026-02-09' };
  const sdk = new ExtendClient1({ baseUrl: sandbox.url, token: sandbox.token });
  return {
    bare: async () => {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`bare fetch got ${res.status}`);
      await res.json();
    },
    client: () => client.extractRuns.retrieve(created.id),
    sdk: async () => {
      const r = await sdk.extractRuns.retrieve(created.id);
      if (r.id !== created.id) throw new Error('the SDK got another run');
    },
  };
}

const SDK_NAME = { '2025-04-21': 'extend-ai 0.0.12', '2026-02-09': 'extend-ai 1.17' };
const ROUTE = { '2025-04-21': 'GET /processor_runs/:id', '2026-02-09': 'GET /extract_runs/:id' };

const sandbox = inProcess ? await startHere() : await startInChild();
try {
  const sides = {};
  for (const v of VERSIONS) {
    const s = v === '2025-04-21' ? await sides2025(sandbox) : await sides2026(sandbox);
    for (const [name, fn] of Object.entries(s)) sides[`${name} ${v}`] = fn;
  }
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
  console.log(`rounds (ms): ${names.map((n) => `${n} ${ms[n].map(Math.round).join(' ')}`).join('; ')}`);
  console.log(`requests: ${REQUESTS} per side x ${ROUNDS} rounds, concurrency ${CONCURRENCY}, blocks of ${BLOCK} taking turns, sandbox ${inProcess ? 'in-process' : 'in a child process'}`);
  const ratios = [];
  for (const v of VERSIONS) {
    const b = mean(ms[`bare ${v}`]);
    const c = mean(ms[`client ${v}`]);
    const k = mean(ms[`sdk ${v}`]);
    console.log(`${v} (${ROUTE[v]}):`);
    console.log(`  bare fetch: ${b.toFixed(0)} ms mean per ${REQUESTS} (${Math.round((REQUESTS / b) * 1000)} sandbox requests/s)`);
    console.log(`  SDK:        ${k.toFixed(0)} ms mean per ${REQUESTS} (${Math.round((REQUESTS / k) * 1000)} requests/s; ${SDK_NAME[v]})`);
    console.log(`  client:     ${c.toFixed(0)} ms mean per ${REQUESTS} (${Math.round((REQUESTS / c) * 1000)} requests/s)`);
    ratios.push(`${v} ${(c / b).toFixed(2)}x of bare fetch, ${(c / k).toFixed(2)}x of the SDK`);
  }
  console.log(`client: ${ratios.join('; ')} (targets <= 1.2x of bare fetch, < 1x of the SDK)`);
} finally {
  await sandbox.close();
}

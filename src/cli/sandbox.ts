import type { Argv } from 'yargs';
import { UsageError, type ExitCode } from '../util/errors.js';
import { redactUrl } from '../util/secrets.js';
import { defineCommand } from './command.js';
import { err, formatOption, out, outJson, untilSignal } from './io.js';

interface SandboxArgs {
  port: number;
  host: string;
  dataDir?: string;
  tokens?: string;
  rateLimit?: string;
  latencyMs?: number;
  failRate?: number;
  engine: string;
  engineConcurrency: number;
  engineDelayMs: number;
  idSeed?: string;
  workflows?: string;
  webhooks?: string;
  versionHeader?: string[];
  fault?: string[];
  record?: string;
  upstream?: string;
  format: 'text' | 'json';
}

export default defineCommand<SandboxArgs>({
  command: 'sandbox',
  describe: 'run a local server that implements the service API (processors, runs, files, evaluation sets, batch runs, workflows, webhooks)',
  builder: (y) =>
    (y as Argv<object>)
      .option('port', { type: 'number', default: 8787, describe: 'port to listen on (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
      .option('data-dir', { type: 'string', describe: 'keep state in DIR/sandbox.db across restarts (in memory without it)' })
      .option('tokens', { type: 'string', describe: 'JSON file of tokens: {"tokens": [{"token", "createdAt", "processors"?, "workflows"?, "apiVersion"?}]}; without it a dev token is printed' })
      .option('fault', { type: 'string', array: true, describe: 'inject a fault, repeatable: status=429|402|5xx with rate=P (share of requests) or limit=N (requests/s per token), retryAfter=S, latency=MS, jitter=MS, drop=1 (the work done, the answer lost), route="[METHOD ]/path*"' })
      .option('rate-limit', { type: 'string', describe: 'requests per second per token; above it 429 with Retry-After (same as --fault status=429,limit=N)' })
      .option('latency-ms', { type: 'number', describe: 'delay added to every response (same as --fault latency=MS)' })
      .option('fail-rate', { type: 'number', describe: 'probability 0-1 of an injected 500 per request (same as --fault status=500,rate=P)' })
      .option('engine', { type: 'string', default: 'simulate', describe: 'simulate[:SEED,ERROR_RATE[,FAILURE_RATE]] (outputs from expected outputs with seeded errors) or replay:FILE.jsonl (recorded outputs)' })
      .option('engine-concurrency', { type: 'number', default: 4, describe: 'runs processed at once; beyond it lower priority numbers go first' })
      .option('engine-delay-ms', { type: 'number', default: 200, describe: 'processing time of one run (+-25%)' })
      .option('id-seed', { type: 'string', describe: 'mint ids from this seed (in memory only): the same requests in the same order get the same ids' })
      .option('workflows', { type: 'string', describe: 'JSON file of workflows (sandbox extension): {"workflows": [{"id": "workflow_...", "name", "versions": [{"version": 1, "steps": [{"processorId", "version"}]}]}]}' })
      .option('webhooks', { type: 'string', describe: 'JSON file of webhook endpoints: {"endpoints": [{"url", "secret", "apiVersion"?, "events"?}], "delivery"?: {"maxAttempts", "baseDelayMs", ...}}' })
      .option('version-header', { type: 'string', array: true, describe: 'header name the API version is read from and echoed under; repeatable (default: x-service-api-version and x-extend-api-version, the official SDK\'s)' })
      .option('record', { type: 'string', describe: 'record mode: forward every request to the service (--upstream, token from EVALKIT_API_TOKEN) and write each ended processor run to FILE in the replay format' })
      .option('upstream', { type: 'string', describe: 'base URL of the service in record mode (default: EVALKIT_BASE_URL)' })
      .option('format', formatOption)
      .example('$0 sandbox', 'in-memory sandbox on http://127.0.0.1:8787; prints the dev token')
      .example('$0 sandbox --data-dir .sandbox --port 9000', 'keep processors, files and runs across restarts')
      .example('$0 sandbox --engine simulate:7,0.2', 'seed 7, 20% of fields wrong: reproducible, non-trivial evaluation metrics')
      .example('$0 sandbox --engine replay:recorded.jsonl', 'answer runs with recorded outputs (by file name or sha256, and version)')
      .example('$0 sandbox --engine replay:reports/eval.json', 'answer runs with the outputs of an evaluation export (by file name)')
      .example('EVALKIT_API_TOKEN=sk_... $0 sandbox --record recorded.jsonl --upstream https://api.example.com', 'record the service\'s outputs through a local proxy, for replay offline')
      .example('$0 sandbox --rate-limit 5 --fail-rate 0.1 --latency-ms 50', 'exercise a client\'s retries and backoff')
      .example("$0 sandbox --fault 'status=429,rate=0.1,retryAfter=2' --fault 'status=503,rate=0.05,route=POST /processor_runs*' --fault 'latency=200,jitter=100'", 'faults an SDK user must handle, per route')
      .example('$0 sandbox --data-dir .sandbox --workflows workflows.json --webhooks hooks.json', 'workflows over kept processors; events signed and sent to your endpoint')
      .epilogue(
        [
          'Stops cleanly on Ctrl-C (SIGINT) or SIGTERM. Point the CLI at it with EVALKIT_BASE_URL and EVALKIT_API_TOKEN.',
          '',
          'The official TypeScript SDK (npm extend-ai) works against it with only baseUrl and token changed:',
          '',
          "  import { ExtendClient } from 'extend-ai';",
          '  const token = process.env.EVALKIT_API_TOKEN;',
          "  const client = new ExtendClient({ baseUrl: 'http://127.0.0.1:8787', token });",
          '  // SDK 1.17 (API 2026-02-09, sent as x-extend-api-version): extractors, classifiers, splitters',
          "  const extractor = await client.extractors.create({ name: 'invoices', config });",
          "  const run = await client.extract({ extractor: { id: extractor.id }, file: { text: 'Total: 7' } });",
          '  // SDK 0.0.12 (API 2025-04-21): processors',
          "  const { processorRun } = await client.processorRun.create({ processorId, rawText: 'Total: 7' });",
          '',
          'See docs/sandbox-api.md for the SDK methods and their status.',
        ].join('\n'),
      ) as unknown as Argv<SandboxArgs>,
  async run(argv) {
    const { parseFaultRule, rateLimitProblem } = await import('../sandbox/faults.js');
    let rateLimit: number | undefined;
    if (argv.rateLimit !== undefined) {
      const typed = String(argv.rateLimit);
      rateLimit = typed.trim() === '' ? NaN : Number(typed);
      const problem = rateLimitProblem(rateLimit);
      if (problem) throw new UsageError(`--rate-limit ${problem} (got "${typed}")`, { hint: 'leave --rate-limit out for no limit' });
    }
    for (const [name, v] of [['--latency-ms', argv.latencyMs], ['--port', argv.port], ['--engine-delay-ms', argv.engineDelayMs]] as const) {
      if (v !== undefined && (!Number.isFinite(v) || v < 0)) throw new UsageError(`${name} must be a number >= 0`);
    }
    if (argv.failRate !== undefined && !(argv.failRate >= 0 && argv.failRate <= 1)) throw new UsageError('--fail-rate must be a number from 0 to 1');
    const faults = (argv.fault ?? []).map((f) => {
      try {
        return parseFaultRule(f);
      } catch (e) {
        throw new UsageError(`--fault ${(e as Error).message.replace(/^fault /, '')}`, { hint: "for example --fault 'status=429,rate=0.1,retryAfter=2,route=GET /processors*'" });
      }
    });
    if (!Number.isInteger(argv.engineConcurrency) || argv.engineConcurrency < 1) throw new UsageError('--engine-concurrency must be an integer >= 1');
    if (argv.record !== undefined) return record(argv);
    if (argv.upstream !== undefined) throw new UsageError('--upstream is for record mode', { hint: 'add --record FILE' });
    const { startSandbox, API_VERSIONS } = await import('../sandbox/index.js');
    const sb = await startSandbox({
      port: argv.port,
      host: argv.host,
      dataDir: argv.dataDir,
      tokens: argv.tokens,
      rateLimit,
      latencyMs: argv.latencyMs,
      failRate: argv.failRate,
      engine: argv.engine,
      engineConcurrency: argv.engineConcurrency,
      engineDelayMs: argv.engineDelayMs,
      idSeed: argv.idSeed,
      workflows: argv.workflows,
      webhooks: argv.webhooks,
      versionHeaders: argv.versionHeader,
      faults,
      log: (line) => err(line),
    });
    // Handlers first: whoever reads the banner may signal at once.
    const stopped = untilSignal();
    if (argv.format === 'json') {
      outJson({ url: sb.url, apiVersions: [...API_VERSIONS].reverse(), engine: sb.engine, dataDir: argv.dataDir ?? null, workflows: argv.workflows ?? null, webhooks: argv.webhooks ?? null, ...(sb.devToken ? { token: sb.token } : {}) });
    } else {
      out(`evalkit sandbox listening on ${listenUrl(argv.host, sb.port, sb.url)} (engine ${sb.engine}, ${argv.dataDir ? `data in ${argv.dataDir}` : 'in memory'})`);
      if (sb.devToken) {
        out(`dev token: ${sb.token}`);
        out(`  export EVALKIT_BASE_URL=${sb.url} EVALKIT_API_TOKEN=${sb.token}`);
      } else out(`tokens from ${argv.tokens}`);
      if (argv.workflows) out(`workflows from ${argv.workflows}`);
      if (argv.webhooks) out(`webhook endpoints from ${argv.webhooks}`);
      for (const f of argv.fault ?? []) out(`fault: ${f}`);
      const names = argv.versionHeader?.length ? argv.versionHeader.map((h) => h.toLowerCase()) : ['x-service-api-version', 'x-extend-api-version'];
      out(`API versions served: 2026-02-09 (extractors, classifiers, splitters; the official SDK 1.x) and ${API_VERSIONS.filter((v) => v < '2026-02-09').reverse().join(', ')} (processors)`);
      out(`Send "${names[0]}: 2025-04-21"${names.length > 1 ? ` (or ${names.slice(1).join(', ')})` : ''} or "x-extend-api-version: 2026-02-09" (required for tokens created on or after 2025-04-21). Ctrl-C stops.`);
    }
    warnIfExposed(argv.host);
    await stopped;
    await sb.close();
    err('evalkit sandbox: stopped');
    return 0;
  },
});

/** `--record FILE`: a proxy to the service instead of the emulation. */
async function record(argv: SandboxArgs): Promise<ExitCode> {
  const emulation = ([['--data-dir', argv.dataDir], ['--tokens', argv.tokens], ['--workflows', argv.workflows], ['--webhooks', argv.webhooks], ['--fault', argv.fault],
    ['--rate-limit', argv.rateLimit], ['--fail-rate', argv.failRate], ['--latency-ms', argv.latencyMs], ['--id-seed', argv.idSeed]] as const).find(([, v]) => v !== undefined);
  if (emulation) throw new UsageError(`${emulation[0]} is for the emulation; --record forwards every request to the service`, { hint: `drop ${emulation[0]} or --record` });
  if (!argv.record) throw new UsageError('--record needs a file to write', { hint: 'for example --record recorded.jsonl' });
  const upstream = argv.upstream ?? process.env.EVALKIT_BASE_URL;
  if (!upstream) throw new UsageError('record mode needs the service\'s base URL', { hint: 'pass --upstream URL or set EVALKIT_BASE_URL' });
  const upstreamToken = process.env.EVALKIT_API_TOKEN;
  if (!upstreamToken) throw new UsageError('record mode needs the service\'s API token', { hint: 'set EVALKIT_API_TOKEN (it is sent to the service only, never written)' });
  const { startRecorder } = await import('../sandbox/record.js');
  const rec = await startRecorder({ file: argv.record, upstream, upstreamToken, port: argv.port, host: argv.host, log: (line) => err(line) });
  const stopped = untilSignal();
  if (argv.format === 'json') outJson({ url: rec.url, mode: 'record', upstream, record: argv.record, token: rec.token });
  else {
    out(`evalkit sandbox listening on ${listenUrl(argv.host, rec.port, rec.url)} (record mode: forwarding to ${redactUrl(upstream)}, writing ${argv.record})`);
    out(`dev token: ${rec.token}`);
    out(`  export EVALKIT_BASE_URL=${rec.url} EVALKIT_API_TOKEN=${rec.token}`);
    out('Requests are sent to the service with the token of EVALKIT_API_TOKEN. Ctrl-C stops.');
  }
  warnIfExposed(argv.host);
  await stopped;
  await rec.close();
  err(`evalkit sandbox: stopped; ${rec.recorded()} run(s) recorded in ${argv.record}`);
  return 0;
}


/** True for 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\./.test(h);
}

/** The address the server really listens on (`http://0.0.0.0:PORT` for all interfaces); `url` (the one to connect to) for loopback hosts. */
function listenUrl(host: string, port: number, url: string): string {
  if (isLoopbackHost(host)) return url;
  const h = host.trim().replace(/^\[|\]$/g, '');
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

function warnIfExposed(host: string): void {
  if (isLoopbackHost(host)) return;
  const all = ['0.0.0.0', '::', '[::]'].includes(host.trim());
  err(`evalkit sandbox: warning: listening on ${all ? 'all interfaces' : host}, reachable from other machines; anyone with the token can use it (--host 127.0.0.1 keeps it local)`);
}

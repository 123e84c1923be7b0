/** `evalkit sandbox` flags of the SDK drop-in work (issue 15), through the built binary. */
import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import type { Extend} from 'extend-ai';
import { ExtendClient } from 'extend-ai';
import { BIN, cleanupAfterEach, runCli } from '../helpers/cli.js';

const { track } = cleanupAfterEach('e2e-sandbox-sdk');

interface Running {
  child: ChildProcess;
  url: string;
  token: string;
  stdout: () => string;
  exit: Promise<number | null>;
}

function launch(args: string[]): Promise<Running> {
  const child = track(spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  let errText = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (errText += d));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const token = /dev token: (\S+)/.exec(out)?.[1];
      if (url && token && out.includes('Ctrl-C')) resolve({ child, url, token, stdout: () => out, exit });
    });
    void exit.then((code) => reject(new Error(`sandbox exited early (${code}): ${errText}`)));
  });
}

async function stop(s: Running): Promise<void> {
  s.child.kill('SIGTERM');
  expect(await s.exit).toBe(0);
}

describe('evalkit sandbox as a drop-in for the official SDK (built binary)', () => {
  test('the SDK works with only baseUrl and token changed; the version is echoed under the name it sent', async () => {
    const s = await launch(['--engine-delay-ms', '1']);
    try {
      const client = new ExtendClient({ baseUrl: s.url, token: s.token });
      const { data, rawResponse } = await client.processor.create({ name: 'p', type: 'CLASSIFY' }).withRawResponse();
      expect(data.processor.id).toMatch(/^dp_/);
      expect(rawResponse.headers.get('x-extend-api-version')).toBe('2025-04-21');
      const run = await client.processorRun.create({ processorId: data.processor.id, rawText: 'an invoice', sync: true });
      expect(run.processorRun.status).toBe('PROCESSED');
      expect(s.stdout()).toContain('Send "x-service-api-version: 2025-04-21" (or x-extend-api-version)');
    } finally {
      await stop(s);
    }
  });

  test('--version-header NAME (repeatable) replaces the accepted names', async () => {
    const s = await launch(['--version-header', 'X-Api-Version', '--version-header', 'x-other-version']);
    try {
      const h = { authorization: `Bearer ${s.token}` };
      const sdk = await fetch(`${s.url}/processors`, { headers: { ...h, 'x-extend-api-version': '2025-04-21' } });
      expect(sdk.status).toBe(400);
      expect(((await sdk.json()) as { error: string }).error).toMatch(/^missing header x-api-version or x-other-version:/);
      const ok = await fetch(`${s.url}/processors`, { headers: { ...h, 'x-other-version': '2025-04-21' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-other-version')).toBe('2025-04-21');
    } finally {
      await stop(s);
    }
  });

  test('--fault per route: 429 with Retry-After and X-RateLimit-Reset, 402, other routes untouched', async () => {
    const s = await launch(['--fault', 'status=429,rate=1,retryAfter=3,route=GET /processors', '--fault', 'status=402,route=POST /processor_runs']);
    try {
      expect(s.stdout()).toContain('fault: status=429,rate=1,retryAfter=3,route=GET /processors');
      const h = { authorization: `Bearer ${s.token}`, 'x-extend-api-version': '2025-04-21' };
      const limited = await fetch(`${s.url}/v1/processors`, { headers: h });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('3');
      expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 2);
      expect(await limited.json()).toEqual({ success: false, error: 'rate limit exceeded (injected fault status=429); retry the request' });
      const pay = await fetch(`${s.url}/processor_runs`, { method: 'POST', headers: h, body: '{}' });
      expect(pay.status).toBe(402);
      expect(((await pay.json()) as { error: string }).error).toMatch(/^payment required/);
      expect((await fetch(`${s.url}/workflow_runs`, { headers: h })).status).toBe(200);
      // The SDK types 402 on none of these calls: it still arrives as an ExtendError with the status.
      const e = await new ExtendClient({ baseUrl: s.url, token: s.token }).processorRun.create({ processorId: 'dp_x', rawText: 'x' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Error);
      expect((e as Extend.BadRequestError).statusCode).toBe(402);
    } finally {
      await stop(s);
    }
  });

  test.each([
    [['--fault', 'status=429,rate=2'], /--fault "status=429,rate=2": rate must be a probability from 0 to 1/],
    [['--fault', 'status=429,speed=2'], /unknown key "speed"/],
    [['--fault', 'status=200'], /status must be an HTTP error status/],
    [['--fault', 'status=500,route=processors'], /route "processors" must be \[METHOD \]\/path/],
    [['--version-header', 'bad header'], /"bad header" is not a valid HTTP header name/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const r = await runCli(['sandbox', '--port', '0', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  test('--help shows an SDK example and the fault syntax', async () => {
    const r = await runCli(['sandbox', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("  const client = new ExtendClient({ baseUrl: 'http://127.0.0.1:8787', token });\n");
    expect(r.stdout).toContain('--fault');
    expect(r.stdout).toContain('--version-header');
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { signWebhook } from '../../src/api/index.js';
import { BIN, cleanupAfterEach, runCli } from '../helpers/cli.js';

const SECRET = 'whsec_e2e_listener_secret_0123';

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

const { track, tmp } = cleanupAfterEach('e2e-webhooks');

/** Runs the built CLI and resolves once `ready` matches its output (stdout or stderr). */
function launch(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<Proc & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  track(child);
  let out = '';
  let errText = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const m = ready.exec(out + errText);
      if (m) resolve({ child, stdout: () => out, stderr: () => errText, exit, match: m });
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => ((out += d), check()));
    child.stderr.setEncoding('utf8').on('data', (d: string) => ((errText += d), check()));
    void exit.then((code) => reject(new Error(`exited early (${code}): ${errText}`)));
  });
}

function listen(extra: string[] = []): Promise<Proc & { url: string }> {
  return launch(['webhooks', 'listen', '--port', '0', ...extra], /listening on (http:\/\/\S+)/, { EVALKIT_WEBHOOK_SECRET: SECRET }).then((p) => ({ ...p, url: p.match[1] }));
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })).status;
}

function signed(body: string, ts = Math.floor(Date.now() / 1000)): Record<string, string> {
  return { 'x-service-webhook-timestamp': String(ts), 'x-service-webhook-signature': signWebhook(SECRET, ts, body) };
}

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('evalkit webhooks listen (built binary)', () => {
  test('prints verified events as JSON lines; rejects unsigned, tampered, old and malformed ones with 401/400 and a stderr line', async () => {
    const l = await listen();
    const event = { eventId: 'evt_a', eventType: 'workflow_run.completed', payload: { id: 'workflow_run_1', batchId: 'batch_1', metadata: { z: 1, a: 2 } } };
    const body = JSON.stringify(event);
    expect(await post(l.url, body, signed(body))).toBe(200);
    expect(await post(l.url, body, signed(body))).toBe(200); // a retry of the same event
    expect(await post(l.url, body, {})).toBe(401);
    expect(await post(l.url, body.replace('batch_1', 'batch_2'), signed(body))).toBe(401);
    expect(await post(l.url, body, signed(body, Math.floor(Date.now() / 1000) - 3600))).toBe(401);
    expect(await post(l.url, 'not json', signed('not json'))).toBe(400);
    expect((await fetch(l.url)).status).toBe(405);
    l.child.kill('SIGTERM');
    expect(await l.exit).toBe(1);

    const lines = l.stdout().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toEqual(event);
    expect(lines[0].indexOf('"a"')).toBeLessThan(lines[0].indexOf('"z"'));
    const errors = l.stderr();
    expect(errors).toContain('duplicate workflow_run.completed evt_a');
    expect(errors).toMatch(/rejected POST \/ with 401: unsigned: /);
    expect(errors).toMatch(/rejected POST \/ with 401: tampered: /);
    expect(errors).toMatch(/rejected POST \/ with 401: expired: event timestamp is 3600 s old/);
    expect(errors).toMatch(/rejected POST \/ with 400: invalid-body: /);
    expect(errors).toMatch(/rejected GET \/ with 405/);
    expect(errors).toContain('1 verified, 5 rejected, 1 duplicate');
    expect(l.stdout() + errors).not.toContain(SECRET);
  });

  test.each(['SIGINT', 'SIGTERM'] as const)('%s after a rejected event: exit 1 (anything rejected), with the tally', async (signal) => {
    const l = await listen();
    expect(await post(l.url, '{}', {})).toBe(401);
    await waitFor(() => l.stderr().includes('rejected POST /'));
    l.child.kill(signal);
    expect(await l.exit).toBe(1);
    expect(l.stderr()).toContain('0 verified, 1 rejected');
  });

  test.each([['SIGINT', 130], ['SIGTERM', 0]] as const)('%s with nothing rejected: exit %i, as evalkit sandbox', async (signal, code) => {
    const l = await listen();
    const body = JSON.stringify({ eventId: 'evt_ok', eventType: 'workflow_run.completed', payload: {} });
    expect(await post(l.url, body, signed(body))).toBe(200);
    await waitFor(() => l.stdout().includes('evt_ok'));
    l.child.kill(signal);
    expect(await l.exit).toBe(code);
    expect(l.stderr()).toContain('1 verified, 0 rejected');
  });

  test('with the built sandbox: --workflows over a kept processor, --webhooks to the listener, --max-events ends it', async () => {
    const dir = tmp();
    const sandboxArgs = ['sandbox', '--port', '0', '--data-dir', path.join(dir, 'data'), '--engine-delay-ms', '1'];
    const first = await launch(sandboxArgs, /listening on (http:\/\/\S+)[\s\S]*dev token: (\S+)[\s\S]*Ctrl-C/);
    const [, url, token] = first.match;
    const h = { authorization: `Bearer ${token}`, 'x-service-api-version': '2025-04-21', 'content-type': 'application/json' };
    const created = (await (await fetch(`${url}/processors`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'kept', type: 'EXTRACT' }) })).json()) as { processor: { id: string } };
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);

    const l = await listen(['--max-events', '3']);
    const workflows = path.join(dir, 'workflows.json');
    writeFileSync(workflows, JSON.stringify({ workflows: [{ id: 'workflow_intake', name: 'Intake', versions: [{ version: 1, steps: [{ processorId: created.processor.id }] }] }] }));
    const hooks = path.join(dir, 'hooks.json');
    writeFileSync(hooks, JSON.stringify({ endpoints: [{ url: `${l.url}/hooks`, secret: SECRET, events: ['workflow_run.completed'] }] }));
    const s = await launch([...sandboxArgs, '--workflows', workflows, '--webhooks', hooks], /listening on (http:\/\/\S+)[\s\S]*Ctrl-C/);
    expect(s.stdout()).toContain(`workflows from ${workflows}`);
    expect(s.stdout()).not.toContain(SECRET);
    const r = await fetch(`${s.match[1]}/workflow_runs/batch`, {
      method: 'POST', headers: h, body: JSON.stringify({ workflowId: 'workflow_intake', inputs: [1, 2, 3].map((i) => ({ rawText: `Invoice ${i}`, metadata: { i } })) }),
    });
    const { batchId } = (await r.json()) as { batchId: string };
    expect(await l.exit).toBe(0);
    const events = l.stdout().trim().split('\n').map((x) => JSON.parse(x) as { eventType: string; payload: { batchId: string; metadata: { i: number }; workflow: { id: string; version: string } } });
    expect(events.map((e) => e.eventType)).toEqual(['workflow_run.completed', 'workflow_run.completed', 'workflow_run.completed']);
    expect(events.map((e) => e.payload.metadata.i).sort()).toEqual([1, 2, 3]);
    for (const e of events) expect(e.payload).toMatchObject({ batchId, workflow: { id: 'workflow_intake', version: '1' } });
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(0);
  });

  test.each([
    [['webhooks', 'listen', '--port', '0'], {}, /no webhook secret[\s\S]*set EVALKIT_WEBHOOK_SECRET/],
    [['webhooks', 'listen', '--port', '0', '--secret', 'x', '--max-events', '0'], {}, /--max-events must be an integer >= 1/],
    [['webhooks', 'serve'], {}, /Invalid values:[\s\S]*action/],
  ])('exit 2 for %j', async (args, env, msg) => {
    const r = await runCli(args, { env: { EVALKIT_WEBHOOK_SECRET: '', ...env } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg);
  });

  test('--help has examples', async () => {
    const r = await runCli(['webhooks', 'listen', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('EVALKIT_WEBHOOK_SECRET');
    expect(r.stdout).toContain('Examples:');
  });
});

describe('evalkit sandbox --workflows / --webhooks files', () => {
  test.each([
    ['workflows', { workflows: [{ name: 'no id', steps: [{ processorId: 'dp_1' }] }] }, /at \/workflows\/0\/id: invalid workflows file: id is required/],
    ['workflows', { workflows: [{ id: 'workflow_a', name: 'a', versions: [{ version: 'one', steps: [{ processorId: 'dp_1' }] }] }] }, /at \/workflows\/0\/versions\/0\/version/],
    ['webhooks', { endpoints: [{ url: 'http://127.0.0.1:9/x', secret: 'short' }] }, /at \/endpoints\/0\/secret: invalid webhooks config: a secret must have at least 16 characters/],
    ['webhooks', { endpoints: [{ url: 'ftp://x', secret: SECRET }] }, /at \/endpoints\/0\/url/],
    ['webhooks', { endpoints: [], delivery: { maxAttempts: 0 } }, /at \/delivery\/maxAttempts/],
  ])('--%s with an invalid file (%j): exit 2 naming the pointer', async (flag, doc, msg) => {
    const file = path.join(tmp(), `${flag}.json`);
    writeFileSync(file, JSON.stringify(doc));
    const r = await runCli(['sandbox', '--port', '0', `--${flag}`, file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr).toContain(file);
    expect(r.stderr).not.toContain(SECRET);
  });
});

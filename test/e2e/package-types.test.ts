/**
 * The published types need no devDependency: a consumer file that uses evalkit's public API
 * compiles with `skipLibCheck: false` in a project holding only evalkit (package.json and
 * dist's .js and .d.ts, as `files` ships them) and evalkit's production dependencies.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

interface LockEntry { dev?: boolean }

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-types-'));
  const pkg = path.join(dir, 'node_modules/evalkit');
  mkdirSync(pkg, { recursive: true });
  cpSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'));
  cpSync(path.join(ROOT, 'dist'), path.join(pkg, 'dist'), { recursive: true, filter: (src) => !src.endsWith('.map') });
  // Production packages of the lockfile (top level; nested ones come inside their parents).
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!/^node_modules\/(@[^/]+\/)?[^/]+$/.test(where) || entry.dev) continue;
    if (!existsSync(path.join(ROOT, where))) continue; // an optional package of another platform
    mkdirSync(path.dirname(path.join(dir, where)), { recursive: true });
    symlinkSync(path.join(ROOT, where), path.join(dir, where), 'dir');
  }
  writeFileSync(path.join(dir, 'package.json'), '{"type": "module", "private": true}\n');
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    // preserveSymlinks: a linked package resolves its imports here, never in evalkit's own node_modules.
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, preserveSymlinks: true, noEmit: true }, files: ['consumer.ts'] }),
  );
  writeFileSync(
    path.join(dir, 'consumer.ts'),
    `import * as evalkit from 'evalkit';
import { clientFromEnv, computeReport, createClient, migrateConfig, runDemo, startSandbox, uploadDataset, validateExpected, verifyWebhook } from 'evalkit';
import type { Client, EvaluationExport, Report, SandboxHandle, SandboxOptions, UploadDatasetResult } from 'evalkit';

export type Api = typeof evalkit;
export const client: Client = createClient({ baseUrl: 'http://127.0.0.1:8787', token: 'token' });
export const fromEnv: () => Client = clientFromEnv;
const options: SandboxOptions = { port: 0, engine: 'simulate:7,0.2' };
export const sandbox: Promise<SandboxHandle> = startSandbox(options);
export function report(e: EvaluationExport): Report {
  return computeReport(e, { bootstrap: 0 });
}
export const migrated = migrateConfig({ type: 'EXTRACT', customExtractionRules: 'x' }, { to: '2025-04-21' });
export const valid: boolean = validateExpected({ type: 'CLASSIFY', classifications: [] }, { id: 'a', type: 'a' }).valid;
export type Upload = UploadDatasetResult;
export { runDemo, uploadDataset, verifyWebhook };
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the published types', () => {
  it('the consumer project has no devDependency', () => {
    for (const dev of ['@types/better-sqlite3', '@types/yargs', '@types/cli-progress', 'typescript', 'vitest']) expect(existsSync(path.join(dir, 'node_modules', dev)), dev).toBe(false);
  });

  it('compile with skipLibCheck: false', { timeout: 300_000 }, () => {
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });
});

import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test, vi } from 'vitest';
import type * as Fs from 'node:fs';

// The store file of another user cannot be made owner-only (chmod: EPERM). The tests run as root,
// who may chmod anything, so the refusal is simulated (once `refuse` is set): the rest of node:fs is the real one.
const chmod = vi.hoisted(() => ({ refuse: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const chmodSync = (file: string, mode: number): void => {
    if (chmod.refuse && String(file).endsWith('sandbox.db')) throw Object.assign(new Error(`EPERM: operation not permitted, chmod '${file}'`), { code: 'EPERM', syscall: 'chmod', path: file });
    fs.chmodSync(file, mode);
  };
  return { ...fs, chmodSync, default: { ...fs, chmodSync } };
});

const { start } = await import('./helpers.js');

let dir: string | undefined;
afterEach(() => {
  chmod.refuse = false;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a store file readable by others that cannot be made owner-only starts with a warning naming it and the fix', async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-sandbox-mode-'));
  const a = await start({ dataDir: dir });
  await a.close();
  const file = path.join(dir, 'sandbox.db');
  chmodSync(file, 0o644);
  chmod.refuse = true;
  const lines: string[] = [];
  const b = await start({ dataDir: dir, log: (line) => lines.push(line) });
  try {
    expect(b.token).toBe(a.token);
    expect(lines).toEqual([`sandbox: warning: ${file} holds the dev token and is readable by other users (mode 0644), and it cannot be made owner-only (EPERM): chmod 600 ${file}`]);
    expect(statSync(file).mode & 0o777).toBe(0o644);
  } finally {
    await b.close();
  }
});

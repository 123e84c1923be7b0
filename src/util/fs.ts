import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';

/**
 * Write a file atomically: a temp file in the same folder, fsync, rename, fsync the folder.
 * Readers see the old content or the new content, never a torn file; a failure leaves the
 * old file as it was and removes the temp file.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array | Iterable<string>, opts: { mode?: number } = {}): Promise<void> {
  const dir = path.dirname(file);
  await fsp.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.evalkit-tmp-${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  let mode = opts.mode;
  if (mode === undefined) {
    try {
      mode = (await fsp.stat(file)).mode & 0o777;
    } catch {
      mode = 0o644;
    }
  }
  const handle = await fsp.open(tmp, 'wx', mode);
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
    else await writeChunks(handle, data);
    await handle.sync();
  } catch (e) {
    await handle.close().catch(() => undefined);
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  await handle.close();
  try {
    await fsp.rename(tmp, file);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(dir);
}

async function fsyncDir(dir: string): Promise<void> {
  let h: fsp.FileHandle | undefined;
  try {
    h = await fsp.open(dir, 'r');
    await h.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    await h?.close().catch(() => undefined);
  }
}

/** Writes a sequence of strings (a file too large for one string, such as a JSONL export) in ~1 MiB writes. */
async function writeChunks(handle: fsp.FileHandle, chunks: Iterable<string>): Promise<void> {
  let buf: string[] = [];
  let size = 0;
  for (const c of chunks) {
    buf.push(c);
    size += c.length;
    if (size >= 1 << 20) {
      await handle.writeFile(buf.join(''));
      buf = [];
      size = 0;
    }
  }
  if (buf.length) await handle.writeFile(buf.join(''));
}

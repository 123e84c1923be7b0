import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';

/**
 * Atomic writes for many files in one run: each file goes to a temp file in its folder, is
 * fsynced and renamed over the target, so a reader (or a killed run) sees the old content or
 * the new, never a torn file. It is util/fs.ts's writeFileAtomic with the per-file overhead
 * taken out for runs over thousands of files: each folder is created once, and folders are
 * fsynced once at the end (flush) instead of after every rename.
 */
export class AtomicWriter {
  private readonly made = new Map<string, Promise<unknown>>();
  private readonly touched = new Set<string>();

  /** keepMode: give the new file the permissions of the file it replaces. */
  async write(file: string, data: string | Uint8Array, opts: { keepMode?: boolean } = {}): Promise<void> {
    const dir = path.dirname(file);
    let made = this.made.get(dir);
    if (!made) this.made.set(dir, (made = fsp.mkdir(dir, { recursive: true })));
    await made;
    let mode: number | undefined;
    if (opts.keepMode) mode = (await fsp.stat(file)).mode & 0o7777;
    const tmp = path.join(dir, `.evalkit-tmp-${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}`);
    const handle = await fsp.open(tmp, 'wx');
    try {
      if (mode !== undefined) await handle.chmod(mode);
      await handle.writeFile(data);
      await handle.datasync();
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
    this.touched.add(dir);
  }

  /** Make the renames durable: fsync every folder written to. */
  async flush(): Promise<void> {
    await Promise.all(
      [...this.touched].map(async (dir) => {
        let h: fsp.FileHandle | undefined;
        try {
          h = await fsp.open(dir, 'r');
          await h.sync();
        } catch {
          // Some platforms cannot fsync a folder; the renames are still atomic.
        } finally {
          await h?.close().catch(() => undefined);
        }
      }),
    );
    this.touched.clear();
  }
}

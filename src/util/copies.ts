import { Worker } from 'node:worker_threads';
import { TEMP_PREFIX, tempTag } from './fs.js';

/** Called once per copy: with nothing when it is written, with the error code when not. */
export type CopyDone = (error?: string) => void;

// The worker: plain CommonJS run with eval, so that it needs no file of its own (and runs the
// same from dist/ and under the test runner). Each message is a batch of [file, data]; the reply
// lists [index, error code] for the copies that failed.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const made = new Set();
let count = 0;
parentPort.on('message', (batch) => {
  const failed = [];
  batch.forEach(([file, data], i) => {
    const dir = path.dirname(file);
    const tmp = path.join(dir, workerData.prefix + path.basename(file) + '.' + workerData.tag + '.' + count++);
    try {
      if (!made.has(dir)) {
        fs.mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      fs.writeFileSync(tmp, data, { flag: 'wx' });
      fs.renameSync(tmp, file);
    } catch (e) {
      try { fs.rmSync(tmp, { force: true }); } catch {}
      failed.push([i, e && e.code ? e.code : String(e)]);
    }
  });
  parentPort.postMessage(failed);
});
`;

const BATCH_FILES = 32;
const BATCH_BYTES = 1 << 17;
/** Past these, writers wait (see throttle) until a quarter is left. */
const MAX_PENDING = 1024;
const MAX_PENDING_BYTES = 1 << 26;

/**
 * New copies of files that stay as they were (migrate --out-dir), written on a worker thread
 * while the caller goes on: on two cores the writes cost the main thread next to nothing, and a
 * slow disk holds up the worker, not the migration. Each copy goes to a temp file renamed over
 * the target, so a killed process leaves no copy or a whole one, never a torn file. Copies are
 * not synced: an OS crash can cost a copy (made again by a re-run), never a user's file.
 * Copies are sent in batches; `done` is called in the order of write().
 */
export class CopyWriter {
  private worker: Worker | undefined;
  private batch: Array<[string, string | Uint8Array]> = [];
  private batchDone: CopyDone[] = [];
  private batchBytes = 0;
  /** Callbacks of the batches sent, oldest first. */
  private readonly sent: Array<{ done: CopyDone[]; bytes: number }> = [];
  private inFlight = 0;
  private inFlightBytes = 0;
  private waiters: Array<{ ready: () => boolean; resolve: () => void }> = [];
  private broken: string | undefined;

  /** Copies written or gathered but not done yet. */
  get pending(): number {
    return this.inFlight;
  }

  write(file: string, data: string | Uint8Array, done: CopyDone): void {
    if (this.broken) return done(this.broken);
    this.inFlight++;
    this.inFlightBytes += data.length;
    this.batch.push([file, data]);
    this.batchDone.push(done);
    this.batchBytes += data.length;
    if (this.batch.length >= BATCH_FILES || this.batchBytes >= BATCH_BYTES) this.flush();
  }

  /** Sends the copies gathered so far. */
  flush(): void {
    if (this.batch.length === 0) return;
    const batch = { done: this.batchDone, bytes: this.batchBytes };
    const data = this.batch;
    this.batch = [];
    this.batchDone = [];
    this.batchBytes = 0;
    if (this.broken) return this.settle(batch, () => this.broken);
    this.sent.push(batch);
    this.start().postMessage(data);
  }

  /** Resolves once at most `max` copies are pending (sending what is gathered). */
  drain(max = 0): Promise<void> {
    return this.until(() => this.inFlight <= max);
  }

  /**
   * For a loop that writes: undefined while the pending copies are few enough, else a promise
   * that resolves once they are down to a quarter (so memory stays bounded when the disk is slow).
   */
  throttle(): Promise<void> | undefined {
    if (this.inFlight < MAX_PENDING && this.inFlightBytes < MAX_PENDING_BYTES) return undefined;
    return this.until(() => this.inFlight <= MAX_PENDING / 4 && this.inFlightBytes <= MAX_PENDING_BYTES / 4);
  }

  private async until(ready: () => boolean): Promise<void> {
    this.flush();
    if (ready()) return;
    await new Promise<void>((resolve) => this.waiters.push({ ready, resolve }));
  }

  /** Waits for every copy, then stops the worker. */
  async close(): Promise<void> {
    await this.drain(0);
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER, { eval: true, workerData: { tag: tempTag(), prefix: TEMP_PREFIX } });
    worker.on('message', (failed: Array<[number, string]>) => {
      const errors = new Map(failed);
      const batch = this.sent.shift();
      if (batch) this.settle(batch, (i) => errors.get(i));
    });
    // A worker that dies (out of memory, say) fails what it had and everything after.
    const fail = (why: string) => {
      this.broken ??= why;
      for (const batch of this.sent.splice(0)) this.settle(batch, () => this.broken);
    };
    worker.on('error', (e) => fail(`copy writer failed: ${e.message}`));
    worker.on('exit', () => fail('copy writer stopped'));
    return (this.worker = worker);
  }

  private settle(batch: { done: readonly CopyDone[]; bytes: number }, error: (i: number) => string | undefined): void {
    this.inFlight -= batch.done.length;
    this.inFlightBytes -= batch.bytes;
    batch.done.forEach((done, i) => done(error(i)));
    this.waiters = this.waiters.filter((w) => (w.ready() ? (w.resolve(), false) : true));
  }
}

/**
 * The engine's work queue: at most `concurrency` runs in progress; when more are waiting, the
 * lowest priority number goes first (spec 4.6: "lower values are served first"), then the
 * oldest. Each run takes about `delayMs` (with +-25% jitter) before its output is written.
 */
interface Job {
  id: string;
  priority: number;
  order: number;
}

export class Scheduler {
  private readonly heap: Job[] = [];
  private readonly queued = new Set<string>();
  private active = 0;
  private order = 0;
  private paused = false;
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private idleWaiters: Array<() => void> = [];
  private readonly closeListeners = new Set<() => void>();

  constructor(
    private readonly concurrency: number,
    private readonly delayMs: number,
    private readonly work: (id: string, started: number) => Promise<void>,
  ) {}

  enqueue(id: string, priority: number): void {
    if (this.closed || this.queued.has(id)) return;
    this.queued.add(id);
    this.push({ id, priority, order: this.order++ });
    this.pump();
  }

  /** Test hook: stop starting runs (runs in progress finish). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  get size(): { queued: number; active: number } {
    return { queued: this.heap.length, active: this.active };
  }

  /** Resolves when nothing is queued or in progress. */
  idle(): Promise<void> {
    if (this.active === 0 && (this.heap.length === 0 || this.paused || this.closed)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops everything; runs in progress are abandoned (they stay PROCESSING and resume on restart). */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.heap.length = 0;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
    const listeners = [...this.closeListeners];
    this.closeListeners.clear();
    for (const l of listeners) l();
  }

  /**
   * Calls `fn` once when the scheduler closes (before the store does): whoever waits on a run
   * (a sync request) clears its timers then. Returns an unsubscribe function.
   */
  onClose(fn: () => void): () => void {
    if (this.closed) {
      fn();
      return () => undefined;
    }
    this.closeListeners.add(fn);
    return () => this.closeListeners.delete(fn);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** A cancellable wait used by the work function. Resolves false when the scheduler closed. */
  sleep(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    // Even without a delay, yield to the event loop: a queue of thousands of runs processed in
    // one chain of microtasks would hold back every request and webhook delivery until it drained.
    if (ms <= 0) return new Promise((resolve) => setImmediate(() => resolve(!this.closed)));
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve(!this.closed);
      }, ms);
      this.timers.add(t);
    });
  }

  /** Processing time of one run: delayMs +-25%. */
  runDelay(): number {
    return this.delayMs <= 0 ? 0 : Math.round(this.delayMs * (0.75 + Math.random() * 0.5));
  }

  private pump(): void {
    while (!this.paused && !this.closed && this.active < this.concurrency && this.heap.length) {
      const job = this.pop();
      this.active++;
      const started = performance.now();
      this.work(job.id, started)
        .catch(() => undefined)
        .finally(() => {
          this.active--;
          this.queued.delete(job.id);
          this.pump();
          if (this.active === 0 && (this.heap.length === 0 || this.paused)) {
            const waiters = this.idleWaiters;
            this.idleWaiters = [];
            for (const w of waiters) w();
          }
        });
    }
  }

  private less(a: Job, b: Job): boolean {
    return a.priority < b.priority || (a.priority === b.priority && a.order < b.order);
  }

  private push(job: Job): void {
    const h = this.heap;
    h.push(job);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private pop(): Job {
    const h = this.heap;
    const top = h[0];
    const last = h.pop() as Job;
    if (h.length) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l], h[m])) m = l;
        if (r < h.length && this.less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}

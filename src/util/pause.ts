/**
 * For loops of mostly synchronous work (blocking reads and writes of many small files, cheaper
 * than promise-based ones): returns a promise that lets timers, signals and output through when
 * `ms` have passed since the last time, and undefined otherwise.
 */
export function yielder(ms: number): () => Promise<void> | undefined {
  // Date.now(), not performance.now(): the first use of the `performance` global loads
  // perf_hooks, a few milliseconds of every run's start-up; milliseconds are precise enough here.
  let last = Date.now();
  return () => {
    const now = Date.now();
    if (now - last < ms) return undefined;
    last = now;
    return new Promise((resolve) => setImmediate(resolve));
  };
}

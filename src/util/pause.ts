/**
 * For loops of mostly synchronous work (blocking reads and writes of many small files, cheaper
 * than promise-based ones): returns a promise that lets timers, signals and output through when
 * `ms` have passed since the last time, and undefined otherwise.
 */
export function yielder(ms: number): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    const now = performance.now();
    if (now - last < ms) return undefined;
    last = now;
    return new Promise((resolve) => setImmediate(resolve));
  };
}

/**
 * The one seeded random generator (mulberry32): small, fast, and the same sequence on every
 * platform, so the same seed gives the same simulated run, the same injected failures and the
 * same bootstrap. It was the sandbox's; the sandbox's outputs (and the demo's numbers) are the
 * sequences it has always produced.
 */
export type Random = () => number;

/** Numbers in [0, 1), like Math.random. */
export function seededRandom(seed: number): Random {
  const generator = new SeededGenerator(seed);
  return () => generator.next();
}

/**
 * seededRandom's generator with its state in the open, for code that continues the same sequence
 * elsewhere (the bootstrap's WebAssembly kernel, src/metrics/wasm/resample.wat): the state steps
 * by 0x6d2b79f5 at every number, and each number mixes the new state.
 */
export class SeededGenerator {
  /** An unsigned 32-bit integer. */
  state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The next number in [0, 1). */
  next(): number {
    const a = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/** An integer in [0, n) from a generator. */
export function below(random: Random, n: number): number {
  return Math.floor(random() * n);
}

import { createHash } from 'node:crypto';

/** A small seeded PRNG (mulberry32): same seed, same sequence, on every platform. */
export type Rng = () => number;

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A PRNG seeded from any strings (hashed), for per-item reproducible choices. */
export function rngFrom(...parts: Array<string | number>): Rng {
  const h = createHash('sha256').update(parts.join('\u0000')).digest();
  return mulberry32(h.readUInt32LE(0));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length) % items.length];
}

/** A value in [lo, hi) rounded to 2 decimals (confidences look like the service's). */
export function between(rng: Rng, lo: number, hi: number): number {
  return Math.round((lo + rng() * (hi - lo)) * 100) / 100;
}

import { createHash } from 'node:crypto';
import { seededRandom } from '../../util/random.js';

/** A seeded PRNG (util/random): same seed, same sequence, on every platform. */
export type Rng = () => number;

/** util/random's generator under the name the engine's tests know. */
export const mulberry32 = seededRandom;

/** A PRNG seeded from any strings (hashed), for per-item reproducible choices. */
export function rngFrom(...parts: Array<string | number>): Rng {
  const h = createHash('sha256').update(parts.join('\u0000')).digest();
  return seededRandom(h.readUInt32LE(0));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length) % items.length];
}

/** A value in [lo, hi) rounded to 2 decimals (confidences look like the service's). */
export function between(rng: Rng, lo: number, hi: number): number {
  return Math.round((lo + rng() * (hi - lo)) * 100) / 100;
}

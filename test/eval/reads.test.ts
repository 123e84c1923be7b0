import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { readEach } from '../../src/eval/reads.js';

const limited = (): ApiError => new ApiError('429 rate limited', { kind: 'http', method: 'GET', path: '/x', status: 429 });
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('readEach', () => {
  it('answers in input order, at most `width` at a time', async () => {
    let now = 0;
    let most = 0;
    const got = await readEach([...Array(50).keys()], 4, async (x) => {
      most = Math.max(most, ++now);
      await tick();
      now--;
      return x * 2;
    });
    expect(got).toEqual([...Array(50).keys()].map((x) => x * 2));
    expect(most).toBe(4);
  });

  it('a read that ends 429 is read again, and the reads go on at half the width, down to one', async () => {
    const tries = new Map<number, number>();
    let now = 0;
    const widths: number[] = [];
    const got = await readEach([...Array(40).keys()], 8, async (x) => {
      widths.push(++now);
      await tick();
      now--;
      const n = (tries.get(x) ?? 0) + 1;
      tries.set(x, n);
      if (x % 5 === 0 && n === 1) throw limited();
      return x;
    });
    expect(got).toEqual([...Array(40).keys()]);
    expect([...tries.values()].filter((n) => n === 2)).toHaveLength(8);
    // After the halvings (8 -> 4 -> 2 -> 1 ...) the last reads ran one at a time.
    expect(widths.at(-1)).toBe(1);
  });

  it('other errors, and a read limited more than 8 times, end the reads', async () => {
    await expect(readEach([1, 2, 3], 2, async (x) => (x === 2 ? Promise.reject(new Error('boom')) : x))).rejects.toThrow('boom');
    let calls = 0;
    await expect(
      readEach([1], 2, async () => {
        calls++;
        throw limited();
      }),
    ).rejects.toThrow('429');
    expect(calls).toBe(9);
  });
});

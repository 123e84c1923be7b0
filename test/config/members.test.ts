import { describe, expect, it } from 'vitest';
import { applyPlan, compose, type Member } from '../../src/config/members.js';

// compose() must build from the source what the two steps build one after the other: for lists
// of members short (found by a scan) and long (found through a map, past 32 members) alike.
function source(n: number): Record<string, unknown> {
  const out: Record<string, unknown> = { opts: { a: 1, b: 2, c: 3 } };
  for (let i = 0; i < n; i++) out[`k${i}`] = i;
  return out;
}

function steps(n: number): { first: Member[]; second: Member[] } {
  // First step: every key renamed k -> r, the object `opts` rebuilt without `b`.
  const first: Member[] = [{ key: 'opts', members: [{ key: 'a', from: ['opts', 'a'] }, { key: 'c', from: ['opts', 'c'] }] }];
  for (let i = 0; i < n; i++) first.push({ key: `r${i}`, from: [`k${i}`] });
  // Second step, planned on the first's result: every third key dropped, the rest renamed r -> s,
  // a value added, one member of the rebuilt object read through it.
  const second: Member[] = [{ key: 'added', value: true }, { key: 'fromOpts', from: ['opts', 'c'] }];
  for (let i = 0; i < n; i++) if (i % 3) second.push({ key: `s${i}`, from: [`r${i}`] });
  second.push({ key: 'opts', from: ['opts'] });
  return { first, second };
}

describe('compose', () => {
  for (const n of [5, 31, 32, 33, 500]) {
    it(`of ${n} keys builds from the source what the two steps build in turn`, () => {
      const src = source(n);
      const { first, second } = steps(n);
      const composed = applyPlan(src, compose(first, second));
      const inTurn = applyPlan(applyPlan(src, first), second);
      expect(composed).toEqual(inTurn);
      expect(Object.keys(composed)).toEqual(Object.keys(inTurn));
      expect(composed.fromOpts).toBe(3);
    });
  }

  it('a key twice in the first list resolves to the last, short list or long', () => {
    for (const n of [3, 40]) {
      const first: Member[] = [{ key: 'x', from: ['a'] }];
      for (let i = 0; i < n; i++) first.push({ key: `f${i}`, from: [`f${i}`] });
      first.push({ key: 'x', from: ['b'] });
      expect(compose(first, [{ key: 'y', from: ['x'] }])).toEqual([{ key: 'y', from: ['b'] }]);
    }
  });

  it('a key the first list does not have is an error naming it, short list or long', () => {
    for (const n of [3, 40]) {
      const first: Member[] = [];
      for (let i = 0; i < n; i++) first.push({ key: `f${i}`, from: [`f${i}`] });
      expect(() => compose(first, [{ key: 'y', from: ['missing', 'deeper'] }])).toThrow('no member missing');
    }
  });
});

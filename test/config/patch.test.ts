import { describe, expect, it } from 'vitest';
import { makePatch, sourcePointer } from '../../src/config/patch.js';

describe('sourcePointer', () => {
  it('follows renamed keys back, members inside them too, the last operation first', () => {
    const patch = makePatch({ a: { x: 1 }, b: 2, c: 3 }, { a2: { x: 1 }, b: 2, c4: 3 });
    expect(patch).toEqual([
      { op: 'move', from: '/a', path: '/a2' },
      { op: 'move', from: '/c', path: '/c4' },
    ]);
    expect(sourcePointer(patch, '/a2/x')).toBe('/a/x');
    expect(sourcePointer(patch, '/a2')).toBe('/a');
    expect(sourcePointer(patch, '/c4')).toBe('/c');
    expect(sourcePointer(patch, '/b')).toBe('/b');
    // A key that only starts like a moved one is not under it.
    expect(sourcePointer(patch, '/a22')).toBe('/a22');
    // A rename of a rename: followed through both.
    expect(sourcePointer([{ op: 'move', from: '/a', path: '/b' }, { op: 'move', from: '/b', path: '/c' }], '/c/0')).toBe('/a/0');
  });

  it('is null for what the patch added or replaced, the whole document included', () => {
    const patch = makePatch({ a: 1, b: { y: 1 } }, { a: 1, b: { y: 2 }, n: { z: true } });
    expect(sourcePointer(patch, '/n/z')).toBeNull();
    expect(sourcePointer(patch, '/b/y')).toBeNull();
    expect(sourcePointer(patch, '/a')).toBe('/a');
    expect(sourcePointer([{ op: 'replace', path: '', value: {} }], '/a')).toBeNull();
  });
});

// Which requests the upload's guard treats as creates (a lost answer is asked about, never resent).
import { describe, expect, it } from 'vitest';
import { isCreateRequest } from '../../src/dataset/guard.js';

const BASE = 'http://127.0.0.1:8787';

describe('isCreateRequest', () => {
  it.each([
    ['POST', '/files/upload', true],
    ['POST', '/evaluation_sets', true],
    // 2025-04-21
    ['POST', '/evaluation_set_items', true],
    ['POST', '/evaluation_set_items/bulk', true],
    ['POST', '/evaluation_set_items/evi_1', false],
    // 2026-02-09: the item create nested under the set; the item's own path is its update.
    ['POST', '/evaluation_sets/ev_1/items', true],
    ['POST', '/evaluation_sets/ev_1/items?x=1', true],
    ['POST', '/evaluation_sets/ev_1/items/evi_1', false],
    ['GET', '/evaluation_sets/ev_1/items', false],
    ['DELETE', '/evaluation_sets/ev_1/items/evi_1', false],
  ])('%s %s: %s', (method, path, want) => {
    expect(isCreateRequest(method, BASE + path)).toBe(want);
  });
});

import { describe, expect, test } from 'vitest';
import { isCreateRequest } from '../../src/dataset/guard.js';

// A create whose answer is lost is read back, never sent again blindly: on either API version's routes.
describe('isCreateRequest', () => {
  test.each([
    ['POST', 'http://127.0.0.1:1/files/upload', true],
    ['POST', 'http://127.0.0.1:1/evaluation_sets', true],
    ['POST', 'http://127.0.0.1:1/evaluation_set_items', true],
    ['POST', 'http://127.0.0.1:1/evaluation_set_items/bulk', true],
    // 2026-02-09: items are created under their set.
    ['POST', 'http://127.0.0.1:1/evaluation_sets/ev_1/items', true],
    ['POST', 'http://127.0.0.1:1/evaluation_sets/ev_1/items?x=1', true],
    // Updates and reads are not creates.
    ['POST', 'http://127.0.0.1:1/evaluation_sets/ev_1/items/evi_1', false],
    ['POST', 'http://127.0.0.1:1/evaluation_set_items/evi_1', false],
    ['GET', 'http://127.0.0.1:1/evaluation_sets/ev_1/items', false],
  ])('%s %s: %s', (method, url, want) => {
    expect(isCreateRequest(method, url)).toBe(want);
  });
});

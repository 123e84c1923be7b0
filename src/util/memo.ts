/**
 * `build` of an array, computed once per array and kept while the array lives: for indexes over
 * lists that are read many times (a config's classes or keys, per document or cell). Built again
 * if the array's length changed: such lists are not changed once read, but a stale index would
 * misplace a value.
 */
export function perArray<T, R>(build: (list: readonly T[]) => R): (list: readonly T[]) => R {
  const cache = new WeakMap<readonly T[], { length: number; value: R }>();
  return (list) => {
    const hit = cache.get(list);
    if (hit && hit.length === list.length) return hit.value;
    const value = build(list);
    cache.set(list, { length: list.length, value });
    return value;
  };
}

/** The one table of 2026-02-09 kinds (src/sandbox/kinds.ts): what an id prefix names, and the names each row derives. */
import { describe, expect, test } from 'vitest';
import { ID_PREFIX } from '../../src/sandbox/ids.js';
import { KINDS, kindOfType, typeOfPrefix, withArticle } from '../../src/sandbox/kinds.js';

describe('typeOfPrefix', () => {
  test.each([
    ['ex_0123456789abcdefghij', 'EXTRACT'],
    ['cl_0123456789abcdefghij', 'CLASSIFY'],
    ['spl_0123456789abcdefghij', 'SPLITTER'],
    // Version and run ids, legacy ids and lookalikes name no entity kind.
    ['exv_0123456789abcdefghij', undefined],
    ['splv_0123456789abcdefghij', undefined],
    ['exr_0123456789abcdefghij', undefined],
    ['splr_0123456789abcdefghij', undefined],
    ['dp_0123456789abcdefghij', undefined],
    ['ex', undefined],
    ['', undefined],
  ])('%s -> %s', (id, type) => {
    expect(typeOfPrefix(id)).toBe(type);
  });
});

describe('KINDS', () => {
  test.each(Object.entries(KINDS))('%s: the entity and run names follow the noun', (type, k) => {
    expect(k.type).toBe(type);
    expect(k.route).toBe(`/${k.noun}s`);
    expect(k.parentKey).toBe(`${k.noun}Id`);
    expect(k.cloneKey).toBe(`clone${k.noun[0].toUpperCase()}${k.noun.slice(1)}Id`);
    expect(k.versionId).toBe(`${k.id}Version`);
    expect(k.run.route).toBe(`${k.run.object}s`);
    expect(k.run.object).toBe(`${k.run.sync}_run`);
    expect(k.run.noun).toBe(`${k.run.sync} run`);
    expect(k.run.id).toBe(`${k.run.sync}Run`);
    expect(ID_PREFIX[k.id]).toMatch(/^[a-z]+_$/);
  });

  test('kindOfType takes only the three types as own keys', () => {
    expect(kindOfType('SPLITTER')).toBe(KINDS.SPLITTER);
    expect(kindOfType('SPLIT')).toBeUndefined();
    expect(kindOfType('constructor')).toBeUndefined();
    expect(kindOfType('__proto__')).toBeUndefined();
  });
});

describe('withArticle: the one a/an of the sandbox\'s messages', () => {
  test.each([
    ['extractor', 'an extractor'],
    ['classifier', 'a classifier'],
    ['splitter', 'a splitter'],
    ['extract run', 'an extract run'],
    ['classify run', 'a classify run'],
    ['split run', 'a split run'],
    ['workflow', 'a workflow'],
  ])('%s -> %s', (noun, want) => {
    expect(withArticle(noun)).toBe(want);
  });

  test('every kind\'s nouns', () => {
    expect(Object.values(KINDS).flatMap((k) => [withArticle(k.noun), withArticle(k.run.noun)])).toEqual(['an extractor', 'an extract run', 'a classifier', 'a classify run', 'a splitter', 'a split run']);
  });
});

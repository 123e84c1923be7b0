import { describe, expect, test } from 'vitest';
import { HAPPY, judge, outcomeOf, tallyLine, worse, type Checks, type Outcome } from './ratchet.js';

const pass: Outcome = { kind: 'pass' };
const fail = (reason: string): Outcome => ({ kind: 'fail', reason });
const needs = (method: string): Outcome => ({ kind: 'needs', method });
/** A method's checks: the happy path, then the named error checks. */
const checks = (happy: Outcome, errors: Record<string, Outcome> = {}): Checks => new Map([[HAPPY, happy], ...Object.entries(errors)]);

describe('worse and outcomeOf', () => {
  test.each([
    [undefined, pass, pass],
    [pass, needs('a.create'), needs('a.create')],
    [needs('a.create'), fail('400'), fail('400')],
    [fail('400'), pass, fail('400')],
    [fail('first'), fail('second'), fail('first')],
  ] as const)('%j then %j -> %j', (a, b, want) => {
    expect(worse(a, b)).toEqual(want);
  });

  test('a method is its worst check; an error check names itself in the reason', () => {
    expect(outcomeOf(checks(pass, { '401': pass, '404': pass }))).toEqual(pass);
    expect(outcomeOf(checks(needs('a.create'), { '401': pass }))).toEqual(needs('a.create'));
    expect(outcomeOf(checks(needs('a.create'), { '401': fail('body is not an ApiError') }))).toEqual(fail('401: body is not an ApiError'));
    expect(outcomeOf(checks(fail('400 unsupported version'), { '401': fail('body') }))).toEqual(fail('400 unsupported version'));
  });
});

describe('judge', () => {
  const expected = ['a.create', 'a.list', 'b.create', 'b.get', 'c.get'];

  test('green: every method outside the list passes, every one inside does not; tally counted by hand', () => {
    const all = new Map<string, Checks>([
      ['a.create', checks(pass, { '401': pass })],
      ['a.list', checks(pass, { '401': pass })],
      ['b.create', checks(fail('400 unsupported API version'), { '401': pass })],
      ['b.get', checks(needs('b.create'), { '401': pass, '404': fail('body') })],
      ['c.get', checks(needs('c.create'), { '401': pass })],
    ]);
    const v = judge(expected, all, { 'b.create': 'route missing', 'b.get': 'needs b.create', 'c.get': 'needs c.create' });
    expect(v.problems).toEqual([]);
    // 5 methods; the happy paths of b.get and c.get were not sent (3 exercised); a.create and a.list
    // pass; 3 gaps, 2 of them (b.get, c.get) with a happy path that needs another method.
    expect(v.tally).toEqual({ methods: 5, exercised: 3, passing: 2, knownGaps: 3, knownGapsNeedingAnother: 2 });
    expect(tallyLine(v.tally)).toBe('SDK 1.17 contract: 5 methods, 3 exercised, 2 passing with no workaround, 3 known gaps (2 of them not sent: a method they need is a gap)');
  });

  test('a known gap that passes must leave the list (the list only shrinks)', () => {
    const all = new Map<string, Checks>(expected.map((m) => [m, checks(pass, { '401': pass })]));
    const v = judge(expected, all, { 'b.get': 'needs b.create' });
    expect(v.problems).toEqual(['b.get: passes now: remove b.get from KNOWN_GAPS']);
    expect(v.tally).toEqual({ methods: 5, exercised: 5, passing: 5, knownGaps: 1, knownGapsNeedingAnother: 0 });
  });

  test('a method outside the list that fails, in any check, or is not sent for a missing input, is a regression', () => {
    const all = new Map<string, Checks>([
      ['a.create', checks(fail('400: body refused'))],
      ['a.list', checks(needs('a.create'))],
      ['b.create', checks(pass, { '404': fail('400 instead of 404') })],
      ['b.get', checks(pass)],
      ['c.get', checks(pass)],
    ]);
    expect(judge(expected, all, {}).problems).toEqual([
      'a.create: 400: body refused (a regression: a method outside KNOWN_GAPS must pass)',
      'a.list: needs a.create (a regression: a method outside KNOWN_GAPS must pass)',
      'b.create: 404: 400 instead of 404 (a regression: a method outside KNOWN_GAPS must pass)',
    ]);
  });

  test('every expected method has its happy path called, nothing else is called, and the list names only expected methods', () => {
    const all = new Map<string, Checks>([
      ['a.create', checks(pass)],
      ['a.list', checks(pass)],
      ['b.create', checks(pass)],
      ['b.get', new Map([['401', pass]])],
      ['z.secret', checks(pass)],
    ]);
    const v = judge(expected, all, { 'y.gone': 'route missing' });
    expect(v.problems).toEqual([
      'z.secret: called, but not a method the suite expects (not public, or excluded)',
      'y.gone: in KNOWN_GAPS but not a method the suite calls: remove y.gone from KNOWN_GAPS',
      'b.get: its happy path is never called by the suite (add a call in dependency order)',
      'c.get: its happy path is never called by the suite (add a call in dependency order)',
    ]);
    expect(v.tally).toEqual({ methods: 5, exercised: 3, passing: 3, knownGaps: 0, knownGapsNeedingAnother: 0 });
  });
});

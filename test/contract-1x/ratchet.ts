/**
 * The ratchet of the SDK 1.17 contract suite: which methods must pass, which are known gaps, and
 * the tally it prints. Pure, so that the rules and every number are tested on their own
 * (ratchet.test.ts) with hand-computed values.
 *
 * A method is checked by one or more calls, each a named check: its happy path (`HAPPY`), and
 * error paths (`401` with a bad token, `404` with an unknown id, ...). Each check ends as
 * - `pass`: the SDK returned (or threw) what its types promise;
 * - `fail`: it did not (the reason says what came back);
 * - `needs`: not sent, because an earlier method that makes its input (an id) is not passing.
 * A method's outcome is its worst call: fail over needs over pass.
 */

export type Outcome = { kind: 'pass' } | { kind: 'fail'; reason: string } | { kind: 'needs'; method: string };

const RANK = { pass: 0, needs: 1, fail: 2 } as const;

/** The name of a method's happy-path check. */
export const HAPPY = 'happy path';

/** A method's checks: check name -> outcome. */
export type Checks = ReadonlyMap<string, Outcome>;

/** A method's outcome: its worst check (the first one on a tie), with the check's name in a failure's reason. */
export function outcomeOf(checks: Checks): Outcome {
  let out: Outcome | undefined;
  for (const [name, o] of checks) out = worse(out, o.kind === 'fail' && name !== HAPPY ? { kind: 'fail', reason: `${name}: ${o.reason}` } : o);
  return out ?? { kind: 'needs', method: '(no check ran)' };
}

/** The worse of two outcomes (the first one seen on a tie). */
export function worse(a: Outcome | undefined, b: Outcome): Outcome {
  return a === undefined || RANK[b.kind] > RANK[a.kind] ? b : a;
}

export function describeOutcome(o: Outcome): string {
  return o.kind === 'pass' ? 'passes' : o.kind === 'needs' ? `needs ${o.method}` : o.reason;
}

export interface Tally {
  /** Methods the suite must call: every public method of the SDK client but the excluded ones. */
  methods: number;
  /** Methods whose happy path was sent (not skipped for a missing input). */
  exercised: number;
  /** Methods whose every call passed, with the client built from base URL and token only. */
  passing: number;
  /** Methods in KNOWN_GAPS (when the suite is green: methods − passing). */
  knownGaps: number;
  /** ...of which the happy path could not be sent, because a method it needs is a gap (`needs`). */
  knownGapsNeedingAnother: number;
}

export interface Verdict {
  /** One line per broken rule; the suite passes when it is empty. */
  problems: string[];
  tally: Tally;
}

/**
 * The rules: every expected method was called; no unexpected method was; a method not in
 * `knownGaps` passes; a method in `knownGaps` does not (else it must leave the list, so the list
 * only shrinks); `knownGaps` names only expected methods.
 */
export function judge(expected: readonly string[], checks: ReadonlyMap<string, Checks>, knownGaps: Readonly<Record<string, string>>): Verdict {
  const problems: string[] = [];
  const want = new Set(expected);
  const gaps = new Map(Object.entries(knownGaps));
  for (const m of [...checks.keys()].sort()) if (!want.has(m)) problems.push(`${m}: called, but not a method the suite expects (not public, or excluded)`);
  for (const m of [...gaps.keys()].sort()) if (!want.has(m)) problems.push(`${m}: in KNOWN_GAPS but not a method the suite calls: remove ${m} from KNOWN_GAPS`);
  let exercised = 0;
  let passing = 0;
  let needing = 0;
  for (const m of [...want].sort()) {
    const c = checks.get(m);
    const happy = c?.get(HAPPY);
    if (!c || !happy) {
      problems.push(`${m}: its happy path is never called by the suite (add a call in dependency order)`);
      continue;
    }
    const o = outcomeOf(c);
    if (happy.kind !== 'needs') exercised++;
    if (o.kind === 'pass') passing++;
    if (happy.kind === 'needs' && gaps.has(m)) needing++;
    if (o.kind === 'pass' && gaps.has(m)) problems.push(`${m}: passes now: remove ${m} from KNOWN_GAPS`);
    if (o.kind !== 'pass' && !gaps.has(m)) problems.push(`${m}: ${describeOutcome(o)} (a regression: a method outside KNOWN_GAPS must pass)`);
  }
  const listed = [...gaps.keys()].filter((m) => want.has(m)).length;
  return { problems, tally: { methods: want.size, exercised, passing, knownGaps: listed, knownGapsNeedingAnother: needing } };
}

/** The one-line tally the suite prints. */
export function tallyLine(t: Tally): string {
  return `SDK 1.17 contract: ${t.methods} methods, ${t.exercised} exercised, ${t.passing} passing with no workaround, ${t.knownGaps} known gaps (${t.knownGapsNeedingAnother} of them not sent: a method they need is a gap)`;
}

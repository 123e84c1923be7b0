// The three-way merge of one item (desired = CSV, last = journal record, live = service), label by label.
import { describe, expect, it } from 'vitest';
import type { ExpectedModel } from '../../src/expected/model.js';
import { appliedLabels, isEmptyLabel, mergeItem, type ItemMerge, type MergeOptions } from '../../src/dataset/merge.js';
import { replayJournal } from '../../src/dataset/journal.js';

const EXTRACT: ExpectedModel = {
  type: 'EXTRACT',
  fields: {
    n: { kind: 'string' },
    total: { kind: 'currency' },
    vendor: { kind: 'object', properties: { name: { kind: 'string' }, country: { kind: 'string' } } },
    items: { kind: 'array', items: { kind: 'object', properties: { amount: { kind: 'number' }, qty: { kind: 'number' } } } },
    __proto__: { kind: 'string' },
  },
} as unknown as ExpectedModel;
// The literal above set the prototype; a field id may be "__proto__" (a user's key is data).
Object.defineProperty((EXTRACT as { fields: Record<string, unknown> }).fields, '__proto__', { value: { kind: 'string' }, enumerable: true });

const v = (value: Record<string, unknown>) => ({ value });
const none = new Set<string>();
const merge = (d: unknown, a: unknown, l: unknown, o: Partial<MergeOptions> = {}): ItemMerge => mergeItem(EXTRACT, d, a, l, { uncovered: none, ...o });
const brief = (m: ItemMerge) => [m.status, m.labels.map((l) => `${l.label}:${l.decision}${l.overwrite ? '!' : ''}`)];

describe('appliedLabels: what the journal records as the last sync', () => {
  const live = v({ n: 'A', total: { amount: 5, iso_4217_currency_code: 'EUR' }, items: [{ amount: 1, qty: 3 }], extra: 'x' });
  it('the CSV\'s labels, and the service\'s where no column names a label (a field, an array member, a key outside the config)', () => {
    const d = v({ n: 'B', items: [{ amount: 2 }] });
    expect(appliedLabels(EXTRACT, d, live, { uncovered: new Set(['total', 'items[].qty']) })).toEqual(v({ n: 'B', items: [{ amount: 2, qty: 3 }], total: { amount: 5, iso_4217_currency_code: 'EUR' }, extra: 'x' }));
    expect(d).toEqual(v({ n: 'B', items: [{ amount: 2 }] }));
  });

  it('the CSV\'s output as it is when every label has a column, or with --prune-fields (the unnamed ones are removed)', () => {
    const d = v({ n: 'B', total: null, items: [], extra: 'y' });
    expect(appliedLabels(EXTRACT, d, live, { uncovered: none })).toBe(d);
    const pruned = v({ n: 'B' });
    expect(appliedLabels(EXTRACT, pruned, live, { uncovered: new Set(['total']), pruneFields: true })).toBe(pruned);
  });

  it('with that record, a column put back with an edit is a CSV change, and with the service\'s edit meanwhile a conflict', () => {
    const uncovered = new Set(['total']);
    const record = appliedLabels(EXTRACT, v({ n: 'A' }), v({ n: 'A', total: { amount: 5, iso_4217_currency_code: 'EUR' } }), { uncovered });
    const back = v({ n: 'A', total: { amount: 9, iso_4217_currency_code: 'EUR' } });
    expect(brief(merge(back, record, v({ n: 'A', total: { amount: 5, iso_4217_currency_code: 'EUR' } })))).toEqual(['update', ['total:update']]);
    expect(brief(merge(back, record, v({ n: 'A', total: { amount: 6, iso_4217_currency_code: 'EUR' } })))).toEqual(['conflict', ['total:conflict']]);
  });
});

describe('mergeItem', () => {
  const cases: Array<[string, { d: unknown; a: unknown; l: unknown; o?: Partial<MergeOptions> }, { want: unknown; out?: unknown }]> = [
    ['all three agree', { d: v({ n: 'A' }), a: v({ n: 'A' }), l: v({ n: 'A' }) }, { want: ['in-sync', []] }],
    ['absent and null are one', { d: v({ n: null }), a: v({}), l: v({}) }, { want: ['in-sync', []] }],
    ['CSV changed', { d: v({ n: 'B', total: null }), a: v({ n: 'A', total: null }), l: v({ n: 'A', total: null }) }, { want: ['update', ['n:update']], out: v({ n: 'B', total: null }) }],
    ['CSV emptied a value', { d: v({ n: null }), a: v({ n: 'A' }), l: v({ n: 'A' }) }, { want: ['update', ['n:clear']], out: v({ n: null }) }],
    ['service changed', { d: v({ n: 'A' }), a: v({ n: 'A' }), l: v({ n: 'S' }) }, { want: ['kept', ['n:kept']] }],
    ['service changed one label, CSV another', { d: v({ n: 'B', vendor: { name: 'x', country: 'CH' } }), a: v({ n: 'A', vendor: { name: 'x', country: 'CH' } }), l: v({ n: 'A', vendor: { name: 'x', country: 'DE' } }) },
      { want: ['update', ['n:update', 'vendor.country:kept']], out: v({ n: 'B', vendor: { name: 'x', country: 'DE' } }) }],
    ['both changed to different values', { d: v({ n: 'B' }), a: v({ n: 'A' }), l: v({ n: 'S' }) }, { want: ['conflict', ['n:conflict']] }],
    ['a conflict holds back the CSV change beside it', { d: v({ n: 'B', vendor: { name: 'y' } }), a: v({ n: 'A', vendor: { name: 'x' } }), l: v({ n: 'S', vendor: { name: 'x' } }) },
      { want: ['conflict', ['n:conflict', 'vendor.name:update']] }],
    ['both changed to the same value', { d: v({ n: 'B' }), a: v({ n: 'A' }), l: v({ n: 'B' }) }, { want: ['in-sync', []] }],
    ['no record and a difference', { d: v({ n: 'B' }), a: undefined, l: v({ n: 'A' }) }, { want: ['conflict', ['n:no-record']] }],
    ['no record, for a CSV of corrections (a harvest): the CSV wins', { d: v({ n: 'B' }), a: undefined, l: v({ n: 'A' }), o: { csvWinsWithoutRecord: true } }, { want: ['update', ['n:update']], out: v({ n: 'B' }) }],
    ['a record still makes a harvest three-way', { d: v({ n: 'B' }), a: v({ n: 'A' }), l: v({ n: 'S' }), o: { csvWinsWithoutRecord: true } }, { want: ['conflict', ['n:conflict']] }],
    ['no record and agreement', { d: v({ n: 'B' }), a: undefined, l: v({ n: 'B' }) }, { want: ['in-sync', []] }],
    ['--overwrite over a service change, a conflict and no record', { d: v({ n: 'B' }), a: undefined, l: v({ n: 'A' }), o: { overwrite: true } }, { want: ['update', ['n:update!']], out: v({ n: 'B' }) }],
    ['--overwrite with an empty CSV value clears', { d: v({ n: null }), a: v({ n: 'A' }), l: v({ n: 'S' }), o: { overwrite: true } }, { want: ['update', ['n:clear!']], out: v({ n: null }) }],
    ['a field no column names stays', { d: v({ n: 'A' }), a: v({ n: 'A' }), l: v({ n: 'A', total: { amount: 5, iso_4217_currency_code: 'EUR' } }), o: { uncovered: new Set(['total']) } }, { want: ['in-sync', []] }],
    ['--prune-fields removes it', { d: v({ n: 'A' }), a: v({ n: 'A' }), l: v({ n: 'A', total: { amount: 5, iso_4217_currency_code: 'EUR' } }), o: { uncovered: new Set(['total']), pruneFields: true } },
      { want: ['update', ['total:clear']], out: v({ n: 'A' }) }],
    ['a key the config does not know and the CSV does not name stays', { d: v({ n: 'A' }), a: v({ n: 'A' }), l: v({ n: 'A', extra: 1 }) }, { want: ['in-sync', []] }],
    ['an array member no column names keeps the service value per element', { d: v({ items: [{ amount: 2 }] }), a: v({ items: [{ amount: 1, qty: 3 }] }), l: v({ items: [{ amount: 1, qty: 3 }] }), o: { uncovered: new Set(['items[].qty']) } },
      { want: ['update', ['items:update']], out: v({ items: [{ amount: 2, qty: 3 }] }) }],
    ['a field named __proto__ is a label like any other', { d: JSON.parse('{"value":{"__proto__":"B"}}'), a: JSON.parse('{"value":{"__proto__":"A"}}'), l: JSON.parse('{"value":{"__proto__":"A"}}') },
      { want: ['update', ['__proto__:update']], out: JSON.parse('{"value":{"__proto__":"B"}}') }],
  ];
  it.each(cases)('%s', (_name, { d, a, l, o }, { want, out }) => {
    const m = merge(d, a, l, o);
    expect(brief(m)).toEqual(want);
    if (out !== undefined) expect(m.output).toEqual(out);
  });

  it('does not change its inputs, and shows CSV, service and last-synced values of a conflict', () => {
    const l = v({ n: 'S' });
    const m = merge(v({ n: 'B' }), v({ n: 'A' }), l);
    expect(m.labels).toEqual([{ label: 'n', decision: 'conflict', csv: 'B', service: 'S', lastSynced: 'A' }]);
    expect(l).toEqual(v({ n: 'S' }));
  });

  it('a CLASSIFY output is one label', () => {
    const model = { type: 'CLASSIFY', classifications: [] } as unknown as ExpectedModel;
    const m = mergeItem(model, { id: 'b', type: 'b' }, { id: 'a', type: 'a' }, { id: 'a', type: 'a' }, { uncovered: none });
    expect(brief(m)).toEqual(['update', ['class:update']]);
    expect(m.output).toEqual({ id: 'b', type: 'b' });
  });

  it('a CLASSIFY or SPLITTER output compares in either API form: confidence 1 or split ids split_<n> on one side only are no change', () => {
    const classify = { type: 'CLASSIFY', classifications: [] } as unknown as ExpectedModel;
    const splitter = { type: 'SPLITTER', classifications: [] } as unknown as ExpectedModel;
    // A set synced in 2025-04-21 form, a CSV read in 2026-02-09 form (and the other way round): in sync, with or without a record.
    expect(brief(mergeItem(classify, { id: 'a', type: 'a' }, undefined, { id: 'a', type: 'a', confidence: 1 }, { uncovered: none }))).toEqual(['in-sync', []]);
    const old = { splits: [{ id: 'split_1', classificationId: 'a', type: 'a', startPage: 1, endPage: 2 }] };
    const cur = { splits: [{ classificationId: 'a', type: 'a', startPage: 1, endPage: 2 }] };
    expect(brief(mergeItem(splitter, cur, old, old, { uncovered: none }))).toEqual(['in-sync', []]);
    expect(brief(mergeItem(splitter, old, undefined, cur, { uncovered: none }))).toEqual(['in-sync', []]);
    // Only the CSV changed since the last sync, recorded in the other form: an update, not a conflict.
    const moved = { splits: [{ classificationId: 'a', type: 'a', startPage: 1, endPage: 3 }] };
    expect(brief(mergeItem(splitter, moved, old, cur, { uncovered: none }))).toEqual(['update', ['splits:update']]);
    // What drops only with a loss is a difference: another confidence is a change of the CSV.
    expect(brief(mergeItem(classify, { id: 'a', type: 'a', confidence: 0.5 }, { id: 'a', type: 'a' }, { id: 'a', type: 'a', confidence: 1 }, { uncovered: none }))).toEqual(['update', ['class:update']]);
  });

  it('empty is null, absent, "", [] or an object of empty members', () => {
    expect([null, undefined, '', [], { amount: null, iso_4217_currency_code: null }].every(isEmptyLabel)).toBe(true);
    expect([0, false, 'x', [null], { amount: 0, iso_4217_currency_code: null }].some(isEmptyLabel)).toBe(false);
  });
});

describe('the journal keeps the last-applied labels', () => {
  const svc = 'http://127.0.0.1:1';
  it('replays applied records per set and item; the latest wins; a delete forgets; old journals have none', () => {
    const lines = [
      { k: 'run', at: 't', service: svc, csv: 'd.csv', set: 'ev_1', v: 2 },
      { k: 'applied', set: 'ev_1', item: 'evi_1', labels: v({ n: 'A' }) },
      { k: 'applied', set: 'ev_1', item: 'evi_2', labels: v({ n: 'X' }) },
      { k: 'applied', set: 'ev_1', item: 'evi_1', labels: v({ n: 'B' }) },
      { k: 'delete', op: 'done', set: 'ev_1', item: 'evi_2' },
      { k: 'run', at: 't', service: 'http://other', csv: 'd.csv' },
      { k: 'applied', set: 'ev_1', item: 'evi_3', labels: v({ n: 'other service' }) },
    ].map((r) => JSON.stringify(r)).join('\n');
    const st = replayJournal(lines + '\n{"k":"applied","set":"ev_1","ite', svc);
    expect([...st.applied]).toEqual([['ev_1\0evi_1', v({ n: 'B' })]]);
    expect(st.skipped).toBe(1);
    const old = replayJournal([{ k: 'run', at: 't', service: svc, csv: 'd.csv' }, { k: 'file', op: 'done', sha256: 'ab', fileId: 'f_1' }, { k: 'update', op: 'done', set: 'ev_1', item: 'evi_1', line: 2 }].map((r) => JSON.stringify(r)).join('\n'), svc);
    expect(old.applied.size).toBe(0);
    expect(old.files.get('ab')).toBe('f_1');
  });
});

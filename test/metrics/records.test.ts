// ExtractRecord.jsonText writes the same line as JSON.stringify of the plain record, with or
// without the per-field cache of member texts, for small and large counts alike.
import { describe, expect, it } from 'vitest';
import { CountArena, ExtractRecord, type RecordLayout } from '../../src/metrics/records.js';

const paths = ['a', 'line_items[].amount', 'z"q'];
const slots = [2, 0, 1];
const base = { correct: false, errors: 3, failed: false, fileId: 'f1', id: 'd1', unexpected: 0 };

const layoutOf = (texts?: Array<Map<number, string>>): RecordLayout => ({
  paths,
  slots,
  slotOf: new Map(paths.map((p, i) => [p, slots[i]])),
  keys: paths.map((p) => `${JSON.stringify(p)}:[`),
  ...(texts ? { texts } : {}),
});

function recordOf(counts: number[], texts?: Array<Map<number, string>>): ExtractRecord {
  return new ExtractRecord(base, layoutOf(texts), Int32Array.from(counts));
}

describe('ExtractRecord.jsonText', () => {
  it('equals JSON.stringify of the record, cached or not, small counts and counts past 15', () => {
    const texts = paths.map(() => new Map<number, string>());
    const rows = [
      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
      [16, 0, 2, 0, 1, 0, 3, 0, 0, 0, 300, 0, 0, 7, 15],
      [15, 15, 15, 15, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    ];
    for (const row of rows) {
      const plain = JSON.stringify(recordOf(row).toJSON());
      expect(recordOf(row).jsonText()).toBe(plain);
      expect(recordOf(row, texts).jsonText()).toBe(plain);
    }
    // The repeated tuples were cached once each; a count past 15 is never cached.
    expect(texts[0].size).toBe(2);
    expect([...texts[1].values()].some((t) => t.includes('16'))).toBe(false);
  });
});

describe('CountArena', () => {
  it('keeps each record its own counts: rows in shared chunks, a row with a count past 255 apart', () => {
    const layout = layoutOf();
    const arena = new CountArena(15, 2); // chunks of two rows: the third record starts a new chunk
    const scratch = new Int32Array(15);
    const rows = [
      [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
      [0, 0, 2, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 9],
      [300, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0],
      [2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ];
    // The scorer reuses one buffer: each record must copy it.
    const records = rows.map((r) => {
      scratch.set(r);
      return arena.record(base, layout, scratch);
    });
    scratch.fill(99);
    records.forEach((rec, k) => {
      expect(rec.jsonText()).toBe(recordOf(rows[k]).jsonText());
      expect(rec.fields).toEqual(recordOf(rows[k]).fields);
    });
    expect(records[2].tuple('line_items[].amount')).toEqual([300, 0, 0, 0, 0]);
  });
});

// ExtractRecord.jsonText writes the same line as JSON.stringify of the plain record, with or
// without the per-field cache of member texts, for small and large counts alike; writeJson
// writes its UTF-8 bytes, or -1 when they do not fit.
import { describe, expect, it } from 'vitest';
import { CountArena, ExtractRecord, type RecordLayout } from '../../src/metrics/records.js';

const paths = ['a', 'line_items[].amount', 'z"q'];
const slots = [2, 0, 1];
const base = { correct: false, errors: 3, failed: false, fileId: 'f1', id: 'd1', unexpected: 0 };

const layoutOf = (texts?: Array<Map<number, Uint8Array>>): RecordLayout => ({
  paths,
  slots,
  slotOf: new Map(paths.map((p, i) => [p, slots[i]])),
  keys: paths.map((p) => `${JSON.stringify(p)}:[`),
  ...(texts ? { texts } : {}),
});

function recordOf(counts: number[], texts?: Array<Map<number, Uint8Array>>, b: ConstructorParameters<typeof ExtractRecord>[0] = base): ExtractRecord {
  return new ExtractRecord(b, layoutOf(texts), Int32Array.from(counts));
}

describe('ExtractRecord.jsonText', () => {
  it('equals JSON.stringify of the record, cached or not, small counts and counts past 15', () => {
    const texts = paths.map(() => new Map<number, Uint8Array>());
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
    expect([...texts[1].values()].some((t) => Buffer.from(t).toString().includes('16'))).toBe(false);
  });

  it('writeJson writes the UTF-8 of jsonText at the offset, leaving the bytes before it; -1 when it does not fit', () => {
    const texts = paths.map(() => new Map<number, Uint8Array>());
    const odd = { ...base, contentHash: 'sha256:ab', fileId: 'fïle "1"', fileName: 'naïve €.pdf', id: 'd\u2028😀', unexpected: 2 };
    const rows = [
      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
      [16, 0, 2, 0, 1, 0, 3, 0, 0, 0, 300, 0, 0, 7, 15],
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ];
    for (const b of [base, odd]) {
      for (const row of rows) {
        for (const cache of [undefined, texts]) {
          const rec = recordOf(row, cache, b);
          rec.straightThrough = b === odd ? true : undefined;
          const want = Buffer.from(JSON.stringify(rec.toJSON()));
          expect(rec.jsonText()).toBe(want.toString());
          const out = Buffer.alloc(want.length + 20, 0x2a);
          const end = rec.writeJson(out, 7);
          expect(end).toBe(7 + want.length);
          expect(out.subarray(7, end).equals(want)).toBe(true);
          expect(out.subarray(0, 7).every((x) => x === 0x2a)).toBe(true);
          // Too little room, at any point of the line: -1, never a short line.
          for (const room of [0, 5, want.length >> 1, want.length - 1]) expect(rec.writeJson(Buffer.alloc(room), 0)).toBe(-1);
        }
      }
    }
  });

  it('jsonText grows its buffer for lines past 64 KiB and past 1 MiB, and short lines after them are whole', () => {
    for (const size of [70_000, 1_200_000, 10]) {
      const rec = recordOf([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], undefined, { ...base, fileName: 'é'.repeat(size) });
      expect(rec.jsonText()).toBe(JSON.stringify(rec.toJSON()));
    }
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

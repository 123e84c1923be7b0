/**
 * The values of each document, for the explorer and the errors file: every outcome but TN of an
 * EXTRACT document with its expected and predicted values (line-item rows as they were paired),
 * the class of a CLASSIFY document, the splits of a SPLITTER document. Scored again from the
 * export with the report's comparator settings, so outcomes are the report's.
 *
 * Two sources: an export held in memory (valueSource), and a JSONL export on disk
 * (fileValueSource), of which only where each item's line is stays in memory: a document's
 * values are read back from its line when asked for, so memory does not grow with the export's
 * size (a 50,000-document export held whole took about 290 MB of heap).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { EvaluationExport, EvaluationExportHeader, ExportItem } from '../../metrics/generated/export.js';
import type { Report } from '../../metrics/generated/report.js';
import { confidenceMap, type ConfidenceSource } from '../../metrics/calibration.js';
import { classOf, confidenceOf, configClasses } from '../../metrics/classify.js';
import { exportOptions, isFailed } from '../../metrics/evaluate.js';
import { buildExtractPlan, extractValues, ExtractScorer, planFromTree, treeIsOpen, type Cell, type ExtractPlan } from '../../metrics/extract.js';
import { mergeValue, treeFromConfig } from '../../metrics/fields.js';
import { splitsOf, type Split } from '../../metrics/splitter.js';
import { InputError } from '../../util/errors.js';
import { itemsWithSpans, parseItemLine, type ItemAt, type OpenedExport } from '../load.js';
import { documentSliceLabels } from '../slices.js';

export type { Cell } from '../../metrics/extract.js';

/** One document's values; `cells` for EXTRACT with `leaf` as an index into `ValueSource.paths`. */
export type DocumentValues =
  | { type: 'EXTRACT'; cells: Cell[] }
  | { type: 'CLASSIFY'; expected: string | null; predicted: string | null; confidence: number | null }
  | { type: 'SPLITTER'; pageCount: number | null; expected: Split[]; predicted: Split[] };

export interface ValueSource {
  /** EXTRACT: the leaf path of each `Cell.leaf`. */
  paths: readonly string[];
  /** The values of the item with this id (undefined: no such item). */
  of(id: string): DocumentValues | undefined;
}

type CompareSettings = Pick<Report['options'], 'fuzzyThreshold' | 'numberTolerance'>;

/** How the values of one item are found: the paths of the cells' leaves, and the values of an item. */
interface ItemValues {
  paths: readonly string[];
  of(item: ExportItem): DocumentValues;
}

/** The values of items of a processor of `header`'s type; EXTRACT items are scored with `plan`. */
function itemValues(header: EvaluationExportHeader, plan: ExtractPlan | undefined, source: ConfidenceSource | undefined): ItemValues {
  switch (header.processor.type) {
    case 'EXTRACT': {
      const scorer = new ExtractScorer(plan as ExtractPlan);
      return {
        paths: (plan as ExtractPlan).leaves.map((l) => l.path),
        of(item) {
          const failed = isFailed(item);
          scorer.cells = [];
          scorer.confidence = source && !failed ? confidenceMap(item.output, source) : undefined;
          scorer.score(extractValues(item.expectedOutput), failed ? undefined : extractValues(item.output), false);
          const cells = scorer.cells;
          scorer.cells = undefined;
          scorer.confidence = undefined;
          return { type: 'EXTRACT', cells };
        },
      };
    }
    case 'CLASSIFY': {
      const { idToType } = configClasses(header.processor.config);
      return {
        paths: ['class'],
        of(item) {
          const failed = isFailed(item);
          return { type: 'CLASSIFY', expected: classOf(item.expectedOutput, idToType), predicted: failed ? null : classOf(item.output, idToType), confidence: failed ? null : confidenceOf(item.output) };
        },
      };
    }
    case 'SPLITTER':
      return {
        paths: ['splits'],
        of(item) {
          return {
            type: 'SPLITTER',
            pageCount: item.pageCount ?? null,
            expected: splitsOf(item.expectedOutput, item.pageCount).splits,
            predicted: isFailed(item) ? [] : splitsOf(item.output, item.pageCount).splits,
          };
        },
      };
  }
}

/** Values of an export scored with a report's settings (the report of this export, or of its baseline). */
export function valueSource(exp: EvaluationExport, options: CompareSettings, source?: ConfidenceSource): ValueSource {
  const byId = new Map<string, ExportItem>(exp.items.map((it) => [it.id, it]));
  let plan: ExtractPlan | undefined;
  if (exp.processor.type === 'EXTRACT') {
    const items = [...byId.values()];
    const expected = items.map((it) => extractValues(it.expectedOutput));
    const predicted = items.map((it) => (isFailed(it) ? undefined : extractValues(it.output)));
    plan = buildExtractPlan(exp.processor.config, expected, predicted, { ...options, ...exportOptions(exp) });
  }
  const values = itemValues(exp, plan, source);
  return {
    paths: values.paths,
    of(id) {
      const item = byId.get(id);
      return item ? values.of(item) : undefined;
    },
  };
}

/** A ValueSource over a file, open until closed. */
export interface FileValueSource extends ValueSource {
  /** The explorer's Slice filter (with `sliceBy`): each item's slices, as `KEY=LABEL`. */
  documentSlices?: Map<string, string[]>;
  close(): void;
}

export interface FileValueOptions {
  /** The report's --slice-by: the items' slice labels are gathered on the way. */
  sliceBy?: readonly string[];
  /** Called after each chunk read, with the lines read so far. */
  onLines?: (read: number) => void;
  /** Bytes per read (tests). */
  chunkSize?: number;
  /** Where the items are, noted by the scoring pass (ItemSpans.source): the file is then not read through again to find them. */
  spans?: ItemSpans;
}

/**
 * Where each item of a JSONL export is (its line, and the line's bytes), by id: noted while the
 * items are read for something else, the report's scoring pass (`source()` is its item source),
 * so that reading the values back needs no pass of its own. Past `limit` items nothing more is
 * noted (and it is not `complete`): report.html shows values only up to its 50,000 documents.
 */
export class ItemSpans {
  readonly index = new Map<string, number>();
  starts = new Float64Array(1024);
  ends = new Float64Array(1024);
  lines = new Int32Array(1024);
  n = 0;
  /** Whether a pass read every item (and noted each, not past the limit). */
  get complete(): boolean {
    return this.finished && !this.overflowed;
  }
  private finished = false;
  private overflowed = false;
  /** With sliceBy: each item's slices, as `KEY=LABEL`. */
  readonly documentSlices: Map<string, string[]> | undefined;
  private readonly labels: ((item: ExportItem) => string[]) | undefined;

  constructor(
    readonly limit = Infinity,
    sliceBy?: readonly string[],
  ) {
    this.labels = sliceBy?.length ? documentSliceLabels(sliceBy) : undefined;
    this.documentSlices = this.labels ? new Map() : undefined;
  }

  /** The export's items, each pass over them noting where they are anew (a pass read to its end notes every item). */
  source(file: string, opened: OpenedExport, opts: Pick<FileValueOptions, 'chunkSize' | 'onLines'> = {}): () => AsyncGenerator<ExportItem> {
    return () => this.pass(file, opened, opts);
  }

  private async *pass(file: string, opened: OpenedExport, opts: Pick<FileValueOptions, 'chunkSize' | 'onLines'>): AsyncGenerator<ExportItem> {
    this.reset();
    for await (const at of itemsWithSpans(file, opened, opts)) {
      this.note(at);
      yield at.item;
    }
    this.finished = true;
  }

  private reset(): void {
    this.index.clear();
    this.documentSlices?.clear();
    this.n = 0;
    this.finished = false;
    this.overflowed = false;
  }

  private note(at: ItemAt): void {
    if (this.overflowed) return;
    if (this.n >= this.limit) {
      // Too many to show: what was noted is dropped, not kept for nothing.
      this.overflowed = true;
      this.index.clear();
      this.documentSlices?.clear();
      return;
    }
    const k = this.n++;
    if (k === this.starts.length) {
      this.starts = grown(this.starts);
      this.ends = grown(this.ends);
      this.lines = grown(this.lines);
    }
    this.starts[k] = at.start;
    this.ends[k] = at.end;
    this.lines[k] = at.line;
    // The last of two items with one id wins, as in valueSource (a report refuses such an export).
    this.index.set(at.item.id, k);
    if (this.labels && this.documentSlices) this.documentSlices.set(at.item.id, this.labels(at.item));
  }
}

/**
 * The values of a JSONL export opened with openExport, read from the file: where each item's
 * line is comes from `opts.spans` (noted by the scoring pass), else from a pass of its own (every
 * line parsed and validated again). The EXTRACT plan is built from the values as the scoring
 * pass builds it (passes over the expected values, then the predictions, only while the config
 * leaves fields or their types open). `of` reads an item's line again, alone. The file must not
 * change meanwhile: an item that is no longer where it was is an error naming the file and line.
 */
export async function fileValueSource(file: string, opened: OpenedExport, options: CompareSettings, source?: ConfidenceSource, opts: FileValueOptions = {}): Promise<FileValueSource> {
  const header = opened.header;
  let spans = opts.spans;
  if (!spans?.complete) {
    spans = new ItemSpans(Infinity, opts.sliceBy);
    for await (const item of spans.source(file, opened, opts)()) void item;
  }
  let plan: ExtractPlan | undefined;
  if (header.processor.type === 'EXTRACT') {
    const tree = treeFromConfig(header.processor.config);
    const declared = tree.props.size > 0;
    if (treeIsOpen(tree, declared)) for await (const item of opened.items()) mergeValue(tree, extractValues(item.expectedOutput), !declared);
    if (treeIsOpen(tree, true)) for await (const item of opened.items()) if (!isFailed(item)) mergeValue(tree, extractValues(item.output), false);
    plan = planFromTree(header.processor.config, tree, declared, { ...options, ...exportOptions(header) });
  }
  const values = itemValues(header, plan, source);
  const { index, starts, ends, lines } = spans;
  let fd: number | undefined = openSync(file, 'r');
  let buf = Buffer.alloc(1 << 16);
  const changed = (k: number, why: string): InputError =>
    new InputError(`${file} changed while the report was being written: line ${lines[k]} ${why}`, { location: { file, line: lines[k] }, hint: 'run the report again on an export that is not being written to' });
  return {
    paths: values.paths,
    ...(spans.documentSlices ? { documentSlices: spans.documentSlices } : {}),
    of(id) {
      const k = index.get(id);
      if (k === undefined) return undefined;
      if (fd === undefined) throw new Error('the value source is closed');
      const length = ends[k] - starts[k];
      if (buf.length < length) buf = Buffer.alloc(Math.max(length, buf.length * 2));
      const read = readSync(fd, buf, 0, length, starts[k]);
      if (read !== length) throw changed(k, 'is shorter');
      let item: ExportItem;
      try {
        item = parseItemLine(buf.toString('utf8', 0, length), file, lines[k], k);
      } catch {
        throw changed(k, 'is no longer an export item');
      }
      if (item.id !== id) throw changed(k, `holds item "${item.id}", not "${id}"`);
      return values.of(item);
    },
    close() {
      // Forgotten first: a close that throws is not tried again on the same number.
      const open = fd;
      fd = undefined;
      if (open !== undefined) closeSync(open);
    },
  };
}

function grown<T extends Float64Array | Int32Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

import type { Inference, ProcessorType } from './types.js';

/**
 * Config key changes of API version 2026-02-09 (spec api-2026-02-09.md 3.2-3.5), as data: the
 * step 2025-04-21 <-> 2026-02-09 (step-2026-02-09.ts), detection, type inference and the table of
 * docs/migrate.md all read this table; nothing restates it.
 *
 * A path is a list of object keys; `[]` stands for every item of an array, and a key ending in `*`
 * for every key with that prefix.
 */
export type KeyPath = readonly string[];

export interface Row2026 {
  types: readonly ProcessorType[];
  /** Path in 2025-04-21; null when the key exists only in 2026-02-09. */
  lower: KeyPath | null;
  /** Path in 2026-02-09; null when the key has no 2026-02-09 counterpart. */
  upper: KeyPath | null;
  /** The row is about one value of the key, not the key (splitMethod, chunkingStrategy). */
  lowerValue?: string;
  upperValue?: string;
  /**
   * A 2026-02-09-only key whose value, when it equals this, means what its absence means:
   * dropping it going down is lossless.
   */
  defaultValue?: unknown;
  /** An INFERRED mapping: applied only when named in `infer`, else refused (or dropped with allowLossy). */
  inferred?: Inference;
  /** Going up, the key is not data but the resource kind: the route carries it (not lossy). */
  route?: true;
  /** Shown in docs/migrate.md. */
  note?: string;
}

const ALL: readonly ProcessorType[] = ['EXTRACT', 'CLASSIFY', 'SPLITTER'];
const E: readonly ProcessorType[] = ['EXTRACT'];
const C: readonly ProcessorType[] = ['CLASSIFY'];
const S: readonly ProcessorType[] = ['SPLITTER'];
const AO = 'advancedOptions';
const PC = 'parseConfig';

/** parseConfig members that 2026-02-09 added (spec 3.2): lossy going down. */
const PARSE_ONLY: readonly KeyPath[] = [
  [PC, 'engine'],
  [PC, 'engineVersion'],
  [PC, 'blockOptions', 'keyValue'],
  [PC, 'blockOptions', 'barcodes'],
  [PC, 'blockOptions', 'formulas'],
  [PC, 'blockOptions', 'tables', 'agentic'],
  [PC, 'blockOptions', 'tables', 'cellBlocksEnabled'],
  [PC, 'blockOptions', 'figures', 'advancedChartExtractionEnabled'],
  [PC, 'blockOptions', 'figures', 'customInstructions'],
  [PC, 'blockOptions', 'text', 'agentic'],
  [PC, AO, 'alwaysConvertToPdf'],
  [PC, AO, 'enrichmentFormat'],
  [PC, AO, 'excel*'],
  [PC, AO, 'formattingDetection'],
  [PC, AO, 'imageConversionQuality'],
  [PC, AO, 'returnOcr'],
  [PC, AO, 'verticalGroupingThreshold'],
];

export const MAPPING_2026: readonly Row2026[] = [
  { types: ALL, lower: ['type'], upper: null, route: true, note: 'the route (/extractors, /classifiers, /splitters) carries the type; added back going down' },
  { types: ALL, lower: ['parser'], upper: [PC] },
  { types: ALL, lower: ['parser', AO, 'agenticOcrEnabled'], upper: null },
  { types: ALL, lower: [AO, 'fixedPageLimit'], upper: null, inferred: 'fixedPageLimit', note: 'INFERRED: with --infer fixedPageLimit, N becomes pageRanges [{"start": 1, "end": N}]' },
  { types: E, lower: [AO, 'documentKind'], upper: null },
  { types: E, lower: [AO, 'keyDefinitions'], upper: null },
  { types: E, lower: [AO, 'advancedFigureParsingEnabled'], upper: null, note: 'nearest is parseConfig.blockOptions.figures, not equivalent' },
  { types: S, lower: [AO, 'splitMethod'], upper: [AO, 'splitMethod'], lowerValue: 'low_latency', upperValue: 'basic_precision', inferred: 'splitMethod', note: 'INFERRED: with --infer splitMethod, low_latency <-> basic_precision' },
  { types: E, lower: null, upper: [AO, 'citationMode'] },
  { types: E, lower: null, upper: [AO, 'reviewAgent'] },
  { types: E, lower: null, upper: [AO, 'currentDateEnabled'], defaultValue: false },
  { types: E, lower: null, upper: [AO, 'chunkingOptions', 'chunkingStrategy'], upperValue: 'contextual' },
  { types: C, lower: null, upper: [AO, 'memoryEnabled'], defaultValue: false },
  { types: S, lower: null, upper: [AO, 'pageOverlapEnabled'], defaultValue: false },
  { types: S, lower: null, upper: ['splitClassifications', '[]', 'identifierKey'] },
  ...PARSE_ONLY.map((upper): Row2026 => ({ types: ALL, lower: null, upper })),
];

/** baseProcessor that 2025-04-21 needs beside a baseVersion, when a 2026-02-09 config has none (1.x's documented default). */
export const DEFAULT_BASE_PROCESSOR: Record<ProcessorType, string> = {
  EXTRACT: 'extraction_performance',
  CLASSIFY: 'classification_performance',
  SPLITTER: 'splitting_performance',
};

/** advancedOptions members that only one type has in 2026-02-09: they settle the type of a config. */
export const OPTION_EVIDENCE_2026: ReadonlyArray<readonly [string, ProcessorType]> = MAPPING_2026.flatMap((r) =>
  r.types.length === 1 && r.upper && r.upper.length === 2 && r.upper[0] === AO && r.upperValue === undefined ? [[r.upper[1], r.types[0]] as const] : [],
);

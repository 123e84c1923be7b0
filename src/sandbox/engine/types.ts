import type { Json, ProcessorType } from '../core.js';
import type { PageLayout } from './citations.js';

/** Everything an engine may look at to produce one run's output. */
export interface EngineInput {
  runId: string;
  processorId: string;
  processorType: ProcessorType;
  /** "1.0", "draft"... */
  versionLabel: string;
  versionId: string;
  /** The config in effect, 2025-04-21 layout. */
  config: Json;
  text: string;
  /** Text of each page (one entry for raw text). */
  pages: string[];
  /** Where the text is on each page (PDF text positions, a text file's lines): for citations. */
  layout?: PageLayout[];
  fileName: string | null;
  sha256: string;
  /** The truth when known: the evaluation set item's expected output (2025-04-21 layout). */
  expected?: Json;
  /** Stable key of the truth (item id or content hash): the simulate engine seeds from it. */
  truthKey: string;
  /** The input is a split document (a derived file) of this file. */
  splitOf?: { parentFileId: string };
}

/** A file recorded with a replayed run: a split document of a splitter run, under the service's id. */
export interface RecordedFile {
  fileId: string;
  name: string;
  bytes: Buffer;
}

export type EngineResult =
  | { ok: true; output: Json; label: Json; derivedFiles?: RecordedFile[] }
  | { ok: false; reason: string; message: string; label: Json };

export interface Engine {
  /** `simulate:42,0.1` / `replay:/path/file.jsonl`, as shown in the start banner. */
  readonly spec: string;
  run(input: EngineInput): EngineResult;
}

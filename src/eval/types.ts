import type { Output } from '../api/index.js';
import type { EvaluationExport } from '../metrics/generated/export.js';
import { EvalkitError } from '../util/errors.js';

/**
 * How the runs are made: `batch` asks the service for one evaluation (batch processor) run
 * (`POST /batch_processor_runs`, a sandbox extension); `per-item` creates one processor run
 * per evaluation set item. `auto` (the default) tries the batch endpoint and falls back to
 * per-item runs when the service answers 404 or 405 (it has no such endpoint), and goes
 * per-item at once when a config override is given (the batch endpoint takes none).
 * `evaluation-set-run`: API 2026-02-09, where `auto` is the service's own evaluation set run
 * (`POST /evaluation_set_runs`, run-2026.ts).
 */
/** An evaluation set item as the export needs it, on either API version: its expected output in the 2025-04-21 form. */
export interface EvalItem {
  id: string;
  fileId: string;
  expectedOutput: Output;
}

export type Strategy = 'batch' | 'per-item' | 'evaluation-set-run';

export interface RunEvaluationOptions {
  evaluationSetId: string;
  /** latest (default), draft, or a published number such as 1.0. */
  version?: string;
  /** A config that replaces the version's for these runs (either layout); forces per-item runs. */
  config?: Record<string, unknown>;
  /** Where `config` came from, for error locations. */
  configFile?: string;
  /**
   * Send keys of `config` that no config layout has as they are (a newer service version's);
   * default: refused with an InputError before any request (docs/migrate.md, "Unknown keys").
   */
  allowUnknown?: boolean;
  fuzzyMatchFields?: string[];
  excludeFields?: string[];
  /** Processor runs created and polled at once (per-item strategy); default 8. */
  concurrency?: number;
  /** 1-100; lower is served first when the service rate-limits. Default: the service's (50). */
  priority?: number;
  /** Overall time to wait for the runs; default 1 hour. */
  timeoutMs?: number;
  /** Default auto. */
  strategy?: 'auto' | 'batch' | 'per-item';
  /** First and longest pause between polls (tests shorten them); default 500 ms and 5 s. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
}

export interface EvalCounts {
  /** Items in the export. */
  items: number;
  /** Runs that ended PROCESSED (with an output). */
  processed: number;
  /** Everything else: failed, cancelled, never created, timed out. */
  failed: number;
  /** Of `failed`: items whose run had not ended when the timeout passed (per-item strategy). */
  timedOut: number;
}

export interface EvalProgress {
  strategy: Strategy;
  /** `start`: resolving set, version and items; `wait`: runs in progress; `collect`: reading results. */
  phase: 'start' | 'wait' | 'collect' | 'done';
  total: number;
  /** Runs created so far (per-item) or in the batch. */
  created: number;
  /** Runs that reached a final status; null while a batch service does not say. */
  ended: number | null;
  /** Known once runs are read (per-item: as they end; batch: after the batch ended). */
  processed: number | null;
  failed: number | null;
  elapsedMs: number;
  batchRunId?: string;
  /** Batch status (batch strategy). */
  status?: string;
}

export interface EvalCallbacks {
  onProgress?: (p: EvalProgress) => void;
  /** Things the user should know that are not errors (fallback to per-item runs, orphan runs). */
  onNotice?: (message: string) => void;
  /**
   * Called with the result before the record of a stopped run is removed (the record lets the same
   * command, run again after a kill, take the run up instead of starting a new one): write the
   * export here. When it throws, the record stays and the error is the call's.
   */
  onResult?: (result: EvalResult) => void | Promise<void>;
  signal?: AbortSignal;
}

export interface EvalResult {
  export: EvaluationExport;
  strategy: Strategy;
  /** The batch processor run, when the batch strategy ran or was exported. */
  batchRunId: string | null;
  counts: EvalCounts;
  elapsedMs: number;
  /** Also sent to onNotice as they happen. */
  notices: string[];
  /** With a --config override: where it came from (`configFile`, else "--config"); the runs ran it, not the version's config. */
  configFile?: string;
  /** API 2026-02-09: how the service's evaluation set run ended (PROCESSED, FAILED, CANCELLED); also in the export's `service.status`. */
  serviceStatus?: string;
}

export interface ExportBatchRunOptions {
  /** Wait for a batch that is still PROCESSING instead of refusing; default false. */
  wait?: boolean;
  /** With `wait`: overall time to wait; default 1 hour. */
  timeoutMs?: number;
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
}

export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_TIMEOUT_MS = 3_600_000;

/**
 * The user stopped the evaluation (Ctrl-C, SIGTERM) or the caller's signal fired. Nothing was
 * written; runs already created keep going on the service. Exit 1, as for an interrupted upload.
 */
export class InterruptedError extends EvalkitError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: 1, hint });
  }
}

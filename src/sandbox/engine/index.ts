import { UsageError } from '../../util/errors.js';
import { closeSync, openSync, readSync } from 'node:fs';
import { exportReplayEngine, looksLikeExport, replayEngine } from './replay.js';
import { SIMULATE_DEFAULTS, simulateEngine } from './simulate.js';
import type { Engine } from './types.js';

export type { Engine, EngineInput, EngineResult } from './types.js';

const HINT = 'use --engine simulate, simulate:SEED, simulate:SEED,ERROR_RATE[,FAILURE_RATE] or replay:FILE.jsonl';

/** Like parseEngine, and `replay:FILE` also reads an evaluation export (whose reader is async). */
export async function loadEngine(spec: string | undefined): Promise<Engine> {
  const s = (spec ?? 'simulate').trim();
  const file = s.startsWith('replay:') ? s.slice('replay:'.length) : '';
  if (file && isExportFile(file)) {
    const { loadExport } = await import('../../report/load.js');
    return exportReplayEngine(file, await loadExport(file));
  }
  return parseEngine(spec);
}

function isExportFile(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(64 * 1024);
    return looksLikeExport(head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8'));
  } catch {
    return false; // parseEngine reports the unreadable file
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Parses `--engine`: `simulate[:seed,error-rate[,failure-rate]]` (default) or `replay:FILE`. */
export function parseEngine(spec: string | undefined): Engine {
  const s = (spec ?? 'simulate').trim();
  if (s.startsWith('replay:')) {
    const file = s.slice('replay:'.length);
    if (!file) throw new UsageError('--engine replay: needs a file', { hint: HINT });
    return replayEngine(file);
  }
  if (s === 'simulate' || s.startsWith('simulate:')) {
    const args = s === 'simulate' ? [] : s.slice('simulate:'.length).split(',').map((x) => x.trim());
    if (args.length > 3) throw new UsageError(`--engine ${s}: too many parameters`, { hint: HINT });
    const [seedText, rateText, failText] = args;
    const opts = { ...SIMULATE_DEFAULTS };
    if (seedText) {
      opts.seed = Number(seedText);
      if (!Number.isSafeInteger(opts.seed)) throw new UsageError(`--engine ${s}: seed must be an integer`, { hint: HINT });
    }
    for (const [text, key] of [[rateText, 'errorRate'], [failText, 'failureRate']] as const) {
      if (!text) continue;
      const v = Number(text);
      if (!Number.isFinite(v) || v < 0 || v > 1) throw new UsageError(`--engine ${s}: ${key === 'errorRate' ? 'error rate' : 'failure rate'} must be a number from 0 to 1`, { hint: HINT });
      opts[key] = v;
    }
    return simulateEngine(opts);
  }
  throw new UsageError(`unknown engine "${s}"`, { hint: HINT });
}

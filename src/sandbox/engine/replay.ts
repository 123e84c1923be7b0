/**
 * `--engine replay:FILE`: recorded outputs, one JSON object per line:
 *
 *   {"fileName": "inv-001.pdf", "version": "1.0", "output": {...}}
 *   {"sha256": "<hex of the file bytes or of the rawText>", "processorId": "dp_...", "output": {...}}
 *   {"fileName": "broken.pdf", "failureReason": "CORRUPT_FILE", "failureMessage": "..."}
 *
 * A record matches by content hash or file name, and optionally by processorId and version
 * (a version label such as "1.0"/"draft" or a version id). The most specific match wins (hash
 * over name, each of processor and version adds), then the later line. No match fails the run
 * with failureReason REPLAY_NOT_FOUND. Outputs may use either splitter term.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../util/errors.js';
import { isPlainObject, parseJson } from '../../util/json.js';
import type { Json } from '../core.js';
import type { Engine, EngineInput, EngineResult } from './types.js';

interface ReplayRecord {
  line: number;
  fileName?: string;
  sha256?: string;
  processorId?: string;
  version?: string;
  output?: Json;
  failureReason?: string;
  failureMessage?: string;
}

export function parseReplay(text: string, file: string): ReplayRecord[] {
  const records: ReplayRecord[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    if (raw.trim() === '') return;
    const doc = parseJson(raw, file, i);
    const at = (pointer: string, msg: string): never => {
      throw new InputError(msg, { location: { file, line: i + 1, pointer }, hint: 'each line: {"fileName"|"sha256", "version"?, "processorId"?, "output" | "failureReason"}' });
    };
    if (!isPlainObject(doc)) return at('', 'a replay record must be a JSON object');
    const str = (k: string): string | undefined => {
      const v = doc[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || v === '') return at(`/${k}`, `${k} must be a non-empty string`);
      return v;
    };
    const rec: ReplayRecord = {
      line: i + 1,
      fileName: str('fileName'),
      sha256: str('sha256')?.toLowerCase(),
      processorId: str('processorId'),
      version: str('version') ?? str('processorVersionId'),
      failureReason: str('failureReason'),
      failureMessage: str('failureMessage'),
    };
    if (doc.output !== undefined) {
      if (!isPlainObject(doc.output)) return at('/output', 'output must be an object');
      rec.output = doc.output;
    }
    if (!rec.fileName && !rec.sha256) return at('', 'a replay record needs fileName or sha256');
    if (!rec.output && !rec.failureReason) return at('', 'a replay record needs output or failureReason');
    records.push(rec);
  });
  return records;
}

export function replayEngine(file: string): Engine {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read replay file: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { location: { file }, hint: 'check the path after --engine replay:' });
  }
  const records = parseReplay(text, file);
  const base = path.basename(file);
  return {
    spec: `replay:${file}`,
    run: (input) => replay(records, input, base),
  };
}

function score(r: ReplayRecord, input: EngineInput): number {
  let s = 0;
  if (r.sha256) {
    if (r.sha256 !== input.sha256) return -1;
    s += 4;
  } else if (r.fileName) {
    if (r.fileName !== input.fileName) return -1;
    s += 2;
  }
  if (r.processorId) {
    if (r.processorId !== input.processorId) return -1;
    s += 1;
  }
  if (r.version) {
    if (r.version !== input.versionLabel && r.version !== input.versionId) return -1;
    s += 1;
  }
  return s;
}

export function replay(records: ReplayRecord[], input: EngineInput, base: string): EngineResult {
  let best: ReplayRecord | undefined;
  let bestScore = -1;
  for (const r of records) {
    const s = score(r, input);
    if (s >= 0 && s >= bestScore) {
      best = r;
      bestScore = s;
    }
  }
  if (!best) {
    const what = input.fileName ? `file "${input.fileName}"` : 'this rawText';
    return {
      ok: false,
      reason: 'REPLAY_NOT_FOUND',
      message: `no recorded output in ${base} for ${what} (sha256 ${input.sha256.slice(0, 12)}...), processor ${input.processorId}, version ${input.versionLabel}`,
      label: { engine: 'replay', simulated: false },
    };
  }
  const label: Json = { engine: 'replay', simulated: false, replayFile: base, replayLine: best.line };
  if (best.failureReason) return { ok: false, reason: best.failureReason, message: best.failureMessage ?? best.failureReason, label };
  return { ok: true, output: structuredClone(best.output as Json), label };
}

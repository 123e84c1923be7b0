/**
 * `--engine replay:FILE`: recorded outputs, one JSON object per line:
 *
 *   {"fileName": "inv-001.pdf", "version": "1.0", "output": {...}}
 *   {"sha256": "<hex of the file bytes or of the rawText>", "processorId": "dp_...", "output": {...}}
 *   {"fileName": "broken.pdf", "failureReason": "CORRUPT_FILE", "failureMessage": "..."}
 *   {"sha256": "...", "fileName": "inv-1.pdf", "processorType": "EXTRACT", "output": {...}}   (written by record mode)
 *   {"sha256": "...", "processorType": "SPLITTER", "output": {"splits": [{..., "fileId": "file_up1"}]},
 *    "derivedFiles": [{"fileId": "file_up1", "name": "...", "sha256": "...", "contentBase64": "..."}]}
 *
 * `derivedFiles` (record mode writes it for splitter runs): the split documents the service made,
 * which the replaying sandbox registers as its own files (engine/process.ts).
 *
 * A record matches by content hash or file name, and optionally by processorId and version
 * (a version label such as "1.0"/"draft" or a version id). The most specific match wins (hash
 * over name, each of processor and version adds), then the later line. No match fails the run
 * with failureReason REPLAY_NOT_FOUND. Outputs may use either splitter term.
 *
 * The file may also be an evalkit evaluation export (`evalkit eval run` / `eval export`, JSON
 * or JSONL, read by src/report/load.ts, the one reader of that format): each item is a record
 * by its file name (exports carry no file hash) and the export's processor type; a PROCESSED
 * item replays its output, any other its failure.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../../util/errors.js';
import { isPlainObject, parseJson } from '../../util/json.js';
import type { Json } from '../core.js';
import type { Engine, EngineInput, EngineResult, RecordedFile } from './types.js';
import type { EvaluationExport } from '../../metrics/generated/export.js';

export interface ReplayRecord {
  line: number;
  /** Only runs of this processor type match (records from an export). */
  processorType?: string;
  fileName?: string;
  sha256?: string;
  processorId?: string;
  version?: string;
  output?: Json;
  failureReason?: string;
  failureMessage?: string;
  /** A splitter run's split documents as record mode fetched them (absent from older recordings). */
  derivedFiles?: RecordedFile[];
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
      processorType: str('processorType'),
      version: str('version') ?? str('processorVersionId'),
      failureReason: str('failureReason'),
      failureMessage: str('failureMessage'),
    };
    if (doc.output !== undefined) {
      if (!isPlainObject(doc.output)) return at('/output', 'output must be an object');
      rec.output = doc.output;
    }
    if (doc.derivedFiles !== undefined) {
      if (!Array.isArray(doc.derivedFiles)) return at('/derivedFiles', 'derivedFiles must be an array of {fileId, name, contentBase64}');
      rec.derivedFiles = doc.derivedFiles.map((f: unknown, j): RecordedFile => {
        const here = `/derivedFiles/${j}`;
        if (!isPlainObject(f)) return at(here, 'each derived file must be an object {fileId, name, contentBase64}');
        for (const k of ['fileId', 'name', 'contentBase64']) if (typeof f[k] !== 'string' || f[k] === '') return at(`${here}/${k}`, `${k} must be a non-empty string`);
        return { fileId: f.fileId as string, name: f.name as string, bytes: Buffer.from(f.contentBase64 as string, 'base64') };
      });
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
  if (r.processorType && r.processorType !== input.processorType) return -1;
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

/** The head of a file is an evaluation export's: JSONL whose first line is its header, or JSON starting with its format marker. */
export function looksLikeExport(text: string): boolean {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (/^\s*\{\s*"format"\s*:\s*"evalkit-export\//.test(body)) return true;
  const nl = body.indexOf('\n');
  try {
    const first: unknown = JSON.parse(nl < 0 ? body : body.slice(0, nl));
    return isPlainObject(first) && typeof first.format === 'string' && first.format.startsWith('evalkit-export/');
  } catch {
    return false;
  }
}

/** Replay records of an export's items: by file name and processor type; items without a file name cannot be matched and are left out. */
export function exportRecords(exp: EvaluationExport, file: string): ReplayRecord[] {
  const records: ReplayRecord[] = [];
  exp.items.forEach((item, i) => {
    if (!item.fileName) return;
    const rec: ReplayRecord = { line: i + 1, fileName: item.fileName, processorType: exp.processor.type };
    if (item.status === 'PROCESSED' && item.output) rec.output = item.output as Json;
    else {
      rec.failureReason = item.failureReason ?? (item.status === 'PROCESSED' ? 'NO_OUTPUT' : item.status);
      rec.failureMessage = item.failureMessage ?? `the recorded run was ${item.status}`;
    }
    records.push(rec);
  });
  if (records.length === 0 && exp.items.length > 0) {
    throw new InputError('the export names no file for any item, so no run can be matched to a recorded output', {
      location: { file, pointer: '/items/0/fileName' },
      hint: 'export with a version of evalkit that writes fileName, or replay a JSONL file with sha256 records',
    });
  }
  return records;
}

/** An engine replaying an evaluation export. */
export function exportReplayEngine(file: string, exp: EvaluationExport): Engine {
  const records = exportRecords(exp, file);
  const base = path.basename(file);
  return { spec: `replay:${file}`, run: (input) => replay(records, input, base) };
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
    // A split document: a run on it replays only from a recording that holds the split's file.
    const rebuilt = input.splitOf
      ? `; the file is a split document of file ${input.splitOf.parentFileId}: a run on a split replays when the recording holds the splitter run's derivedFiles and the run on the split (record mode writes both; a recording made before evalkit recorded derived files has neither: record again)`
      : '';
    return {
      ok: false,
      reason: 'REPLAY_NOT_FOUND',
      message: `no recorded output in ${base} for ${what} (sha256 ${input.sha256.slice(0, 12)}...), processor ${input.processorId}, version ${input.versionLabel}${rebuilt}`,
      label: { engine: 'replay', simulated: false },
    };
  }
  const label: Json = { engine: 'replay', simulated: false, replayFile: base, ...(best.processorType ? { replayItem: best.line - 1 } : { replayLine: best.line }) };
  if (best.failureReason) return { ok: false, reason: best.failureReason, message: best.failureMessage ?? best.failureReason, label };
  return { ok: true, output: structuredClone(best.output as Json), label, ...(best.derivedFiles ? { derivedFiles: best.derivedFiles } : {}) };
}

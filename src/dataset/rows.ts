/**
 * One CSV record -> the file it names and its expectedOutput, with findings located by CSV
 * line, column and field. Validation against the config (the validator of `evalkit validate`)
 * happens here too, so a row is either ready to upload or carries its reasons.
 */
import type { Finding } from '../expected/index.js';
import type { ExpectedModel } from '../expected/model.js';
import { SETTLED_BY_FLAG } from '../expected/rules.js';
import { fromPointer, valueAt } from '../util/json.js';
import { coerceCell, coerceDeep, depthProblem, type CellProblem, type CoerceOptions } from './cells.js';
import { classCell, completeJsonSplits, matchClassification, splitsCell } from './classes.js';
import type { Column, ColumnPlan } from './columns.js';
import type { RowFinding } from './findings.js';
import { formatPath, setAt, type Segment } from './paths.js';

export interface FileRef {
  /** The file column's text (relative to the CSV). */
  path?: string;
  fileId?: string;
  /** Column of the reference, for findings. */
  column: number;
}

export interface BuiltRow {
  line: number;
  file?: FileRef;
  /** Undefined when the row could not be shaped at all. */
  output?: Record<string, unknown>;
  findings: RowFinding[];
}

export type Validate = (doc: unknown) => { valid: boolean; findings: Finding[] };

interface Origin {
  pointer: Segment[];
  column: Column;
}

function cellFinding(line: number, col: Column, basePath: Segment[] | undefined, p: CellProblem): RowFinding {
  const field = basePath ? formatPath([...basePath, ...p.at]) || undefined : p.at.length ? formatPath(p.at) : undefined;
  return { line, column: col.index + 1, header: col.header, field, rule: p.rule, message: p.message, hint: p.hint, severity: 'error' };
}

/** `{value, metadata?}` given whole, or the bare value object. */
function wrapExtract(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    if (keys.includes('value') && keys.every((k) => k === 'value' || k === 'metadata')) return v;
    return { value: v };
  }
  return v;
}

export function buildRow(cells: readonly string[], line: number, plan: ColumnPlan, model: ExpectedModel, opts: CoerceOptions): BuiltRow & { origins: Origin[] } {
  const findings: RowFinding[] = [];
  const origins: Origin[] = [];
  const cell = (c: Column): string => cells[c.index] ?? '';

  if (cells.length > plan.columns.length && cells.slice(plan.columns.length).some((c) => c.trim() !== '')) {
    findings.push({ line, column: plan.columns.length + 1, rule: 'column-count', severity: 'error',
      message: `the row has ${cells.length} cells but the header names ${plan.columns.length} columns`,
      hint: 'quote cells that contain the delimiter, or add a header for the extra column' });
  }

  // The file.
  let file: FileRef | undefined;
  const pathText = plan.fileColumn ? cell(plan.fileColumn).trim() : '';
  const idText = plan.fileIdColumn ? cell(plan.fileIdColumn).trim() : '';
  if (pathText && idText) {
    findings.push({ line, column: plan.fileIdColumn!.index + 1, header: plan.fileIdColumn!.header, rule: 'file-missing', severity: 'error',
      message: 'the row names both a file and a fileId', hint: 'keep one of them' });
  } else if (pathText) file = { path: pathText, column: plan.fileColumn!.index + 1 };
  else if (idText) file = { fileId: idText, column: plan.fileIdColumn!.index + 1 };
  else if (plan.fileColumn || plan.fileIdColumn) {
    const c = plan.fileColumn ?? plan.fileIdColumn!;
    findings.push({ line, column: c.index + 1, header: c.header, rule: 'file-missing', severity: 'error', message: 'the row names no file', hint: 'fill in the file (a path relative to the CSV) or the fileId' });
  }

  // The expected output.
  let output: Record<string, unknown> | undefined;
  const jsonCol = plan.columns.find((c) => c.role === 'expectedOutput');
  if (jsonCol) {
    const text = cell(jsonCol).trim();
    origins.push({ pointer: [], column: jsonCol });
    if (text === '') {
      findings.push({ line, column: jsonCol.index + 1, header: jsonCol.header, rule: 'output-empty', severity: 'error', message: 'the expectedOutput cell is empty', hint: 'write the expected output as JSON' });
    } else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        findings.push(cellFinding(line, jsonCol, undefined, { at: [], rule: 'json-syntax', message: `the cell is not valid JSON: ${e instanceof Error ? e.message : String(e)}`, hint: 'write the expected output as JSON' }));
      }
      const deep = parsed === undefined ? undefined : depthProblem(parsed, text);
      if (deep) {
        findings.push(cellFinding(line, jsonCol, undefined, deep));
        parsed = undefined;
      }
      if (parsed !== undefined) {
        const problems: CellProblem[] = [];
        if (model.type === 'EXTRACT') {
          const doc = wrapExtract(parsed) as Record<string, unknown>;
          if (doc && typeof doc === 'object' && 'value' in doc) doc.value = coerceDeep({ kind: 'object', properties: model.fields }, doc.value, ['value'], opts, problems);
          output = doc;
        } else if (model.type === 'CLASSIFY') {
          if (typeof parsed === 'string') {
            const c = matchClassification(parsed, model.classifications);
            output = c ? { id: c.id, type: c.type } : { id: parsed, type: parsed };
          } else output = parsed as Record<string, unknown>;
        } else {
          output = completeJsonSplits(parsed, model.classifications) as Record<string, unknown>;
        }
        for (const p of problems) findings.push(cellFinding(line, jsonCol, undefined, p));
      }
    }
  } else if (model.type === 'CLASSIFY') {
    const col = plan.columns.find((c) => c.role === 'class');
    if (col) {
      origins.push({ pointer: [], column: col });
      const r = classCell(cell(col), model.classifications);
      if (r.ok) output = r.value as Record<string, unknown>;
      else for (const p of r.problems) findings.push(cellFinding(line, col, undefined, p));
    }
  } else if (model.type === 'SPLITTER') {
    const col = plan.columns.find((c) => c.role === 'splits');
    if (col) {
      origins.push({ pointer: [], column: col });
      const r = splitsCell(cell(col), model.classifications);
      if (r.ok) output = r.value as Record<string, unknown>;
      else for (const p of r.problems) findings.push(cellFinding(line, col, ['splits'], p));
    }
  } else {
    output = { value: buildExtractValue(cells, line, plan, opts, findings, origins) };
  }
  return { line, file, output, findings, origins };
}

function buildExtractValue(
  cells: readonly string[],
  line: number,
  plan: ColumnPlan,
  opts: CoerceOptions,
  findings: RowFinding[],
  origins: Origin[],
): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  const empty: Column[] = [];
  const indexed = new Map<string, { prefix: Segment[]; column: Column }>();
  for (const col of plan.columns) {
    if (col.role !== 'field') continue;
    const path = col.path!;
    origins.push({ pointer: ['value', ...path], column: col });
    const k = path.findIndex((s) => typeof s === 'number');
    if (k > 0) indexed.set(formatPath(path.slice(0, k)), { prefix: path.slice(0, k), column: col });
    const text = cells[col.index] ?? '';
    if (text.trim() === '') {
      empty.push(col);
      continue;
    }
    const r = coerceCell(col.node!, text, opts);
    if (r.ok) setAt(value, path, r.value);
    else for (const p of r.problems) findings.push(cellFinding(line, col, path, p));
  }
  // Empty cells are null, except that an array element whose cells are all empty is not there.
  for (const col of empty) {
    const path = col.path!;
    const k = path.findIndex((s) => typeof s === 'number');
    if (k < 0) {
      setAt(value, path, null);
      continue;
    }
    if (valueAt(value, path.slice(0, k + 1)) !== undefined) setAt(value, path, null);
    // No element at all: the whole array is empty, which an empty cell says as null.
    else if (valueAt(value, path.slice(0, k)) === undefined) setAt(value, path.slice(0, k), null);
  }
  for (const { prefix, column } of indexed.values()) {
    const arr = valueAt(value, prefix);
    if (!Array.isArray(arr)) continue;
    for (let i = 0; i < arr.length; i++) {
      if (!(i in arr)) {
        findings.push({ line, column: column.index + 1, header: column.header, field: formatPath([...prefix, i]), rule: 'array-hole', severity: 'error',
          message: `${formatPath([...prefix, i])} is empty but ${formatPath([...prefix, arr.length - 1])} is not`,
          hint: 'fill the rows of the array from index 0 without gaps' });
        arr[i] = null;
      }
    }
  }
  return value;
}

/** Validator findings -> row findings at the column that produced the value. */
export function validatorFindings(line: number, findings: readonly Finding[], origins: readonly Origin[], type: ExpectedModel['type']): RowFinding[] {
  return findings.map((f) => {
    let segs: Segment[];
    try {
      segs = fromPointer(f.pointer).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    } catch {
      segs = [];
    }
    let best: Origin | undefined;
    for (const o of origins) {
      if (o.pointer.length <= segs.length && o.pointer.every((s, i) => String(s) === String(segs[i])) && (!best || o.pointer.length > best.pointer.length)) best = o;
    }
    const fieldSegs = type === 'EXTRACT' && segs[0] === 'value' ? segs.slice(1) : segs;
    return {
      line,
      column: best ? best.column.index + 1 : undefined,
      header: best?.column.header,
      field: fieldSegs.length ? formatPath(fieldSegs) : undefined,
      rule: f.rule,
      message: f.message,
      ...(f.settledBy ? { hint: SETTLED_BY_FLAG[f.settledBy] } : {}),
      severity: f.severity,
    };
  });
}


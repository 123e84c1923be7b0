/**
 * The canonical JSON rendering of a report: keys sorted, 2-space indent; arrays of scalars and
 * small objects of scalars (counts, intervals) on one line, and one line per document record,
 * so that a report of 50,000 documents stays greppable and a fraction of the size of fully
 * indented JSON.
 */
import type { Report } from '../metrics/generated/report.js';
import { ExtractRecord } from '../metrics/records.js';

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

/** JSON.stringify with sorted keys and no whitespace. */
export function compactSorted(v: unknown): string {
  if (v === undefined) return 'null';
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') return compactSorted((v as { toJSON(): unknown }).toJSON());
  if (isScalar(v)) return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(compactSorted).join(',')}]`;
  const o = v as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(o).sort()) if (o[k] !== undefined) parts.push(`${JSON.stringify(k)}:${compactSorted(o[k])}`);
  return `{${parts.join(',')}}`;
}

/** Whether every object inside has its keys in sorted order already (then JSON.stringify is canonical). */
function keysSortedDeep(v: unknown): boolean {
  if (isScalar(v)) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (!isScalar(x) && !keysSortedDeep(x)) return false;
    return true;
  }
  const o = v as Record<string, unknown>;
  let prev = '';
  let first = true;
  for (const k in o) {
    if (!first && !(prev < k)) return false;
    first = false;
    prev = k;
    const x = o[k];
    if (!isScalar(x) && !keysSortedDeep(x)) return false;
  }
  return true;
}

/** One document record on one line: native JSON.stringify when its keys are already sorted. */
export function compactRecord(v: unknown): string {
  if (v instanceof ExtractRecord) return v.jsonText();
  const x = v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v;
  return keysSortedDeep(x) ? JSON.stringify(x) : compactSorted(x);
}

function write(v: unknown, indent: string, key: string | undefined, out: string[]): void {
  if (isScalar(v)) {
    out.push(JSON.stringify(v));
    return;
  }
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return void out.push('[]');
    if (v.every(isScalar)) return void out.push(`[${v.map((x) => JSON.stringify(x)).join(', ')}]`);
    out.push('[\n');
    v.forEach((x, i) => {
      out.push(inner);
      if (key === 'documents') out.push(compactRecord(x));
      else write(x, inner, undefined, out);
      out.push(i < v.length - 1 ? ',\n' : '\n');
    });
    out.push(`${indent}]`);
    return;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  if (keys.length === 0) return void out.push('{}');
  if (keys.length <= 8 && keys.every((k) => isScalar(o[k]))) {
    return void out.push(`{${keys.map((k) => `${JSON.stringify(k)}: ${JSON.stringify(o[k])}`).join(', ')}}`);
  }
  out.push('{\n');
  keys.forEach((k, i) => {
    out.push(`${inner}${JSON.stringify(k)}: `);
    write(o[k], inner, k, out);
    out.push(i < keys.length - 1 ? ',\n' : '\n');
  });
  out.push(`${indent}}`);
}

export function renderJson(report: Report): string {
  const out: string[] = [];
  write(report, '', undefined, out);
  out.push('\n');
  return out.join('');
}

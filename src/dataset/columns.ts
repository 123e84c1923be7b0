/**
 * What each CSV column means: the file or fileId column, the whole expectedOutput as JSON, the
 * class (CLASSIFY), the splits (SPLITTER), or an EXTRACT field path resolved against the
 * processor config's expected-output model. `--map` renames headers first.
 */
import type { ExpectedModel, Node } from '../expected/model.js';
import { formatPath, isPrefix, parsePath, type Segment } from './paths.js';
import type { RowFinding } from './findings.js';

export type ColumnRole = 'file' | 'fileId' | 'expectedOutput' | 'class' | 'splits' | 'field' | 'metadata' | 'ignore';

export interface Column {
  /** 0-based position in the record. */
  index: number;
  header: string;
  role: ColumnRole;
  /** For role 'field': the path under `value`, and the model node it points at. */
  path?: Segment[];
  node?: Node;
}

export interface ColumnPlan {
  columns: Column[];
  fileColumn?: Column;
  fileIdColumn?: Column;
  /** Header problems: the upload cannot start while any is an error. */
  findings: RowFinding[];
  /**
   * EXTRACT fields no column sets, as shape paths (`total`, `vendor.country`,
   * `line_items[].quantity`). Said once for the header instead of once per row.
   */
  uncovered: Set<string>;
}

/** `--map` file content: CSV header -> target (a role name or a field path), null to ignore. */
export type ColumnMap = Record<string, string | null>;

const ROLE_ALIASES: Record<string, ColumnRole> = {
  file: 'file',
  path: 'file',
  fileid: 'fileId',
  file_id: 'fileId',
  expectedoutput: 'expectedOutput',
  expected_output: 'expectedOutput',
  class: 'class',
  classification: 'class',
  splits: 'splits',
};

function roleOf(name: string, type: ExpectedModel['type']): ColumnRole | undefined {
  const role = ROLE_ALIASES[name.trim().toLowerCase()];
  if (role === 'class' && type !== 'CLASSIFY') return undefined;
  if (role === 'splits' && type !== 'SPLITTER') return undefined;
  return role;
}

/** Model node at a path under the EXTRACT `value`, or undefined when the config has no such field. */
export function nodeAt(fields: Record<string, Node>, segs: readonly Segment[]): Node | undefined {
  let node: Node = { kind: 'object', properties: fields };
  for (const s of segs) {
    switch (node.kind) {
      case 'object':
        if (typeof s !== 'string' || !Object.prototype.hasOwnProperty.call(node.properties, s)) return undefined;
        node = node.properties[s];
        break;
      case 'array':
        if (typeof s !== 'number') return undefined;
        node = node.items;
        break;
      case 'currency':
        if (s === 'amount') node = { kind: 'number' };
        else if (s === 'iso_4217_currency_code') node = { kind: 'string' };
        else return undefined;
        break;
      case 'any':
        return { kind: 'any' };
      default:
        return undefined;
    }
  }
  return node;
}

function knownPaths(fields: Record<string, Node>): string {
  const names = Object.keys(fields);
  return names.length > 12 ? `${names.slice(0, 12).join(', ')}, ...` : names.join(', ');
}

/** A field path with array indexes left out: `line_items[0].amount` -> `line_items[].amount`. */
export function shapePath(segs: readonly Segment[]): string {
  return formatPath(segs.map((s) => (typeof s === 'number' ? -1 : s))).replace(/\[-1\]/g, '[]');
}

/**
 * Object members of the model that no column sets, wholly or in part. A column sets a member
 * when its path runs through it (vendor.name sets vendor) or stops above it (a JSON cell for
 * line_items sets every member of the items).
 */
function uncoveredFields(fields: Record<string, Node>, columns: readonly Column[]): Set<string> {
  const paths = columns.filter((c) => c.role === 'field').map((c) => shapePath(c.path!));
  const out = new Set<string>();
  const under = (p: string, q: string) => p === q || p.startsWith(`${q}.`) || p.startsWith(`${q}[]`);
  const walk = (node: Node, at: string): void => {
    if (node.kind === 'array') return walk(node.items, `${at}[]`);
    if (node.kind !== 'object') return;
    for (const [key, child] of Object.entries(node.properties)) {
      const q = at === '' ? key : `${at}.${key}`;
      if (paths.some((p) => under(q, p))) continue;
      if (paths.some((p) => under(p, q))) walk(child, q);
      else out.add(q);
    }
  };
  walk({ kind: 'object', properties: fields }, '');
  return out;
}

export function planColumns(header: readonly string[], model: ExpectedModel, opts: { map?: ColumnMap; headerLine?: number; strict?: boolean } = {}): ColumnPlan {
  const line = opts.headerLine ?? 1;
  const findings: RowFinding[] = [];
  const columns: Column[] = [];
  const map = opts.map ?? {};
  const headerFinding = (index: number, field: string | undefined, rule: string, message: string, hint?: string): void => {
    findings.push({ line, column: index + 1, header: header[index], field, rule, message, hint, severity: 'error' });
  };

  header.forEach((raw, index) => {
    const mapped = Object.prototype.hasOwnProperty.call(map, raw) ? map[raw] : raw;
    if (mapped === null || mapped.trim() === '' || mapped.trim().startsWith('#')) {
      // Unnamed columns (a trailing delimiter) and `# notes` columns carry no data for the item.
      columns.push({ index, header: raw, role: 'ignore' });
      return;
    }
    const target = mapped.trim();
    // `metadata.KEY` columns describe the item (for report slices), unless a field is named metadata.
    if (target.startsWith('metadata.') && target.length > 'metadata.'.length && !(model.type === 'EXTRACT' && Object.prototype.hasOwnProperty.call(model.fields, 'metadata'))) {
      columns.push({ index, header: raw, role: 'metadata' });
      return;
    }
    const role = roleOf(target, model.type);
    if (role) {
      columns.push({ index, header: raw, role });
      return;
    }
    if (model.type !== 'EXTRACT') {
      const wanted = model.type === 'CLASSIFY' ? '"class"' : '"splits"';
      headerFinding(index, undefined, 'unknown-column', `column "${raw}" means nothing for a ${model.type} processor`,
        `a ${model.type} dataset has a file (or fileId) column and a ${wanted} (or expectedOutput) column; rename it with --map, or start its header with # to ignore it`);
      return;
    }
    const fields = model.fields;
    // A field id may itself contain dots or brackets; the literal id wins over a path reading.
    const path = Object.prototype.hasOwnProperty.call(fields, target) ? [target] : parsePath(target);
    if (!path) {
      headerFinding(index, undefined, 'column-path', `column "${raw}" is not a field path`, 'write paths as vendor.name or line_items[0].amount');
      return;
    }
    const node = nodeAt(fields, path);
    if (!node) {
      headerFinding(index, formatPath(path), 'unknown-field', `column "${raw}": the processor config has no field ${formatPath(path)}`,
        `fields of the config: ${knownPaths(fields)}; rename the column with --map, or start its header with # to ignore it`);
      return;
    }
    columns.push({ index, header: raw, role: 'field', path, node });
  });

  const byRole = (r: ColumnRole) => columns.filter((c) => c.role === r);
  for (const role of ['file', 'fileId', 'expectedOutput', 'class', 'splits'] as const) {
    const cols = byRole(role);
    for (const c of cols.slice(1)) headerFinding(c.index, undefined, 'duplicate-column', `column "${c.header}" repeats the ${role} column "${cols[0].header}"`, 'keep one of them');
  }
  const fieldCols = byRole('field');
  for (let i = 0; i < fieldCols.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = fieldCols[j];
      const b = fieldCols[i];
      if (isPrefix(a.path!, b.path!) || isPrefix(b.path!, a.path!)) {
        headerFinding(b.index, formatPath(b.path!), 'duplicate-column', `column "${b.header}" overlaps column "${a.header}" (both set ${formatPath(isPrefix(a.path!, b.path!) ? a.path! : b.path!)})`,
          'use either one JSON column for the field or one column per member');
        break;
      }
    }
  }
  const fileColumn = byRole('file')[0];
  const fileIdColumn = byRole('fileId')[0];
  if (!fileColumn && !fileIdColumn) {
    findings.push({ line, rule: 'missing-column', message: 'the CSV has neither a "file" nor a "fileId" column', hint: 'add a file column (paths relative to the CSV) or a fileId column (files already uploaded)', severity: 'error' });
  }
  const outputs = byRole('expectedOutput').length + fieldCols.length + byRole('class').length + byRole('splits').length;
  if (outputs === 0) {
    const what = model.type === 'EXTRACT' ? 'one column per field (or an expectedOutput column)' : model.type === 'CLASSIFY' ? 'a "class" column (or an expectedOutput column)' : 'a "splits" column (or an expectedOutput column)';
    findings.push({ line, rule: 'missing-column', message: `the CSV has no expected-output column`, hint: `add ${what}`, severity: 'error' });
  }
  const json = byRole('expectedOutput')[0];
  const others = [...fieldCols, ...byRole('class'), ...byRole('splits')];
  if (json && others.length > 0) {
    headerFinding(json.index, undefined, 'duplicate-column', `column "${json.header}" holds the whole expected output, but column "${others[0].header}" sets part of it too`,
      'use either the expectedOutput column or per-field columns');
  }
  const uncovered = model.type === 'EXTRACT' && !json && fieldCols.length > 0 ? uncoveredFields(model.fields, columns) : new Set<string>();
  if (uncovered.size > 0) {
    const list = [...uncovered].join(', ');
    if (opts.strict) {
      findings.push({ line, rule: 'missing-column', severity: 'error', message: `no column for ${uncovered.size === 1 ? 'field' : 'fields'} ${list} (--strict: every configured field needs a column)`,
        hint: 'add the columns (empty cells are null), or drop --strict to leave the fields out' });
    } else {
      findings.push({ line, rule: 'missing-field', severity: 'warning', message: `no column for ${uncovered.size === 1 ? 'field' : 'fields'} ${list}: the items leave ${uncovered.size === 1 ? 'it' : 'them'} out (expect nothing)`,
        hint: 'add a column with empty cells to expect null instead; --strict makes this an error' });
    }
  }
  return { columns, fileColumn, fileIdColumn, findings, uncovered };
}

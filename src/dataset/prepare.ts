/**
 * Pass 1 of an upload: read the CSV, shape every row, validate it with the validator of
 * `evalkit validate`, and write the rejects file. Nothing is sent that writes; only what a row
 * needs to be planned (line, identity, digest) is kept, so memory stays small per row.
 */
import { createExpectedValidator, normalizeConfig, type ConfigSource } from '../expected/index.js';
import { buildModel, type ExpectedForm, type ExpectedModel } from '../expected/model.js';
import { isPlainObject } from '../util/json.js';
import { inForm } from './classes.js';
import type { CoerceOptions } from './cells.js';
import { planColumns, shapePath, type ColumnMap, type ColumnPlan } from './columns.js';
import { parsePath } from './paths.js';
import { openCsv, type CsvRecord, type CsvSource } from './csv.js';
import { contentIdentity, FileResolver, fileIdIdentity, type LocalFile } from './files.js';
import { isError, type RowFinding } from './findings.js';
import { digestOf, type PlannedRow } from './plan.js';
import { RejectsWriter } from './rejects.js';
import { buildRow, validatorFindings } from './rows.js';
import { unneutralise } from './rejects.js';
import path from 'node:path';

export interface PrepareOptions {
  csv: string;
  delimiter?: string;
  map?: ColumnMap;
  coerce?: CoerceOptions;
  /** Absent configured fields are errors (as `evalkit validate --strict`). */
  strict?: boolean;
  allowOutside?: boolean;
  /** Where rejected rows go; undefined: no rejects file. */
  rejectsFile?: string;
  /** Checks that a fileId exists on the service (true/false); absent: not checked (offline). */
  fileIdExists?: (fileId: string) => Promise<boolean>;
  onRow?: (rowsRead: number) => void;
  /** The expected-output form of the API version in effect (default 2025-04-21): CLASSIFY and SPLITTER outputs are built in it from either form. */
  form?: ExpectedForm;
}

/** A row ready to plan (pass 2 shapes it again from the CSV). */
export type ValidRow = PlannedRow;

export interface Shaped {
  line: number;
  cells: string[];
  identity?: string;
  local?: LocalFile;
  fileId?: string;
  output?: Record<string, unknown>;
  findings: RowFinding[];
}

export interface Prepared {
  source: CsvSource;
  model: ExpectedModel;
  columns: ColumnPlan;
  rows: ValidRow[];
  /** Every finding (errors and warnings), header problems included, in CSV order. */
  findings: RowFinding[];
  total: number;
  invalid: number;
  headerInvalid: boolean;
  rejectsFile?: string;
  /** Shapes one record again (pass 2); deterministic, files come from the resolver's cache. */
  shape(rec: CsvRecord): Promise<Shaped>;
}

export function modelOf(config: ConfigSource): ExpectedModel {
  const n = normalizeConfig(config.config, { type: config.type });
  return buildModel(n.config, n.type);
}

const WINDOW = 32;

export async function prepareRows(config: ConfigSource, opts: PrepareOptions): Promise<Prepared> {
  const source = await openCsv(opts.csv, { delimiter: opts.delimiter });
  const model = modelOf(config);
  const columns = planColumns(source.header, model, { map: opts.map, headerLine: source.headerLine, strict: opts.strict });
  const validate = createExpectedValidator(config.config, { type: config.type, form: opts.form, strict: opts.strict, currency: opts.coerce?.currency, dateOrder: opts.coerce?.dateOrder });
  const resolver = new FileResolver(path.dirname(path.resolve(opts.csv)), { allowOutside: opts.allowOutside });
  const coerce = opts.coerce ?? {};
  const idChecks = new Map<string, Promise<boolean>>();

  /** `check`: pass 1, which also validates and checks fileIds; pass 2 only needs the shape (its digest must match pass 1's). */
  async function shape(rec: CsvRecord, check = false): Promise<Shaped> {
    const cells = rec.cells.map(unneutralise);
    const built = buildRow(cells, rec.line, columns, model, coerce);
    if (built.output !== undefined && isPlainObject(built.output)) built.output = inForm(built.output, model.type, opts.form ?? '2025-04-21');
    const findings = built.findings;
    let identity: string | undefined;
    let local: LocalFile | undefined;
    if (built.file?.path !== undefined) {
      const r = await resolver.resolve(built.file.path);
      if (r.ok) {
        local = r.file;
        identity = contentIdentity(r.file.sha256);
      } else {
        const col = columns.fileColumn!;
        findings.push({ line: rec.line, column: col.index + 1, header: col.header, rule: r.rule, message: r.message, hint: r.hint, severity: 'error' });
      }
    } else if (built.file?.fileId !== undefined) {
      identity = fileIdIdentity(built.file.fileId);
      if (check && opts.fileIdExists) {
        const id = built.file.fileId;
        let p = idChecks.get(id);
        if (!p) idChecks.set(id, (p = opts.fileIdExists(id)));
        if (!(await p)) {
          const col = columns.fileIdColumn!;
          findings.push({ line: rec.line, column: col.index + 1, header: col.header, rule: 'file-id-unknown', severity: 'error',
            message: `the service has no file ${id}`, hint: 'check the fileId, or name the file by path in a file column' });
        }
      }
    }
    // A value whose cells failed to parse would only add confusing follow-up findings.
    if (check && built.output !== undefined && !findings.some((f) => f.rule !== 'file-missing' && f.rule !== 'file-outside' && f.rule !== 'file-empty' && f.rule !== 'file-id-unknown' && isError(f))) {
      const v = validate(built.output);
      // Fields no column sets were said once, for the header.
      const rowFindings = validatorFindings(rec.line, v.findings, built.origins, model.type);
      findings.push(...(columns.uncovered.size === 0 ? rowFindings : rowFindings.filter((f) => !(f.rule === 'missing-field' && f.field !== undefined && columns.uncovered.has(shapePath(parsePath(f.field) ?? [f.field]))))));
    }
    return { line: rec.line, cells, identity, local, fileId: built.file?.fileId, output: built.output, findings };
  }

  const findings: RowFinding[] = [...columns.findings];
  const headerInvalid = columns.findings.some(isError);
  const rows: ValidRow[] = [];
  let total = 0;
  let invalid = 0;
  let rejectsFile: string | undefined;
  if (!headerInvalid) {
    const rejects = opts.rejectsFile ? new RejectsWriter(opts.rejectsFile, source.header, source.delimiter, source.bom) : undefined;
    // What stays per row until the plan is made is small (line, identity, digest): identities
    // are shared by the rows of one file, and duplicates are found without a key per row.
    const seen = new Map<string, Map<string, number>>();
    const identities = new Map<string, string>();
    const finish = async (s: Shaped): Promise<void> => {
      total++;
      opts.onRow?.(total);
      findings.push(...s.findings);
      const errors = s.findings.filter(isError);
      if (errors.length > 0 || s.identity === undefined || s.output === undefined) {
        invalid++;
        const reasons = errors.map((f) => `${f.column !== undefined ? `column ${f.column}${f.header ? ` (${f.header})` : ''}: ` : ''}${f.field ? `${f.field}: ` : ''}${f.rule}: ${f.message}`);
        await rejects?.add(s.cells, `line ${s.line}: ${reasons.join('; ') || 'the row could not be read'}`);
        return;
      }
      const digest = digestOf(s.output);
      let identity = identities.get(s.identity);
      if (identity === undefined) identities.set(s.identity, (identity = s.identity));
      let digests = seen.get(identity);
      if (!digests) seen.set(identity, (digests = new Map()));
      const first = digests.get(digest);
      if (first !== undefined) {
        findings.push({ line: s.line, rule: 'duplicate-row', severity: 'warning', message: `same file and expected output as line ${first}; both become items` });
      } else digests.set(digest, s.line);
      rows.push({ line: s.line, identity, digest });
    };
    try {
      // Rows are shaped a window at a time (files hashed, fileIds checked in parallel) and
      // finished in CSV order.
      const window: Array<Promise<Shaped>> = [];
      for await (const rec of source.records()) {
        window.push(shape(rec, true));
        if (window.length >= WINDOW) await finish(await window.shift()!);
      }
      while (window.length) await finish(await window.shift()!);
      rejectsFile = rejects ? await rejects.close() : undefined;
    } catch (e) {
      await rejects?.abort();
      throw e;
    }
  }
  return { source, model, columns, rows, findings, total, invalid, headerInvalid, rejectsFile, shape: (rec) => shape(rec, false) };
}

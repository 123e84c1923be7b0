/**
 * What `evalkit init` writes, as text: the config file with one dataset section, a CSV whose
 * header `dataset upload` accepts for the processor's config (one example row), the CI workflow,
 * and the processor config the workflow evaluates when the repository does not hold one yet.
 * Pure: the CLI checks the targets and writes the files. Nothing it writes names this machine:
 * the files are committed, and a loopback or sandbox address in them is a dead link in CI.
 */
import { quoteCell } from '../dataset/rejects.js';
import { formatPath, parsePath, type Segment } from '../dataset/paths.js';
import { buildModel, type ExpectedModel, type Node } from '../expected/model.js';
import type { ProcessorType } from '../config/index.js';
import { normalizeBaseUrl } from '../api/client.js';
import { DEV_TOKEN_PREFIX } from '../sandbox/auth.js';
import { isLoopbackAddress } from '../sandbox/loopback.js';
import { CONFIG_FILE_NAME, renderSettings, type DatasetSettings, type EvalkitConfig } from './load.js';
import { renderWorkflow, WORKFLOW_FILE } from './workflow.js';

export interface ScaffoldInput {
  /** The dataset section's name. */
  dataset: string;
  type: ProcessorType;
  /** The processor config in the layout of `apiVersion` (2025-04-21's when none is given). */
  config: Record<string, unknown>;
  processorId?: string;
  evaluationSet?: string;
  baseUrl?: string;
  /**
   * The API version in effect when init ran, written as the config file's `apiVersion`: the team
   * stays on it (migrate --check, validate, eval) when evalkit's default moves on.
   */
  apiVersion?: string;
  /** `$schema` of the config file. */
  schemaRef: string;
  /** The CSV's file name, relative to the config file. */
  csv: string;
  /**
   * The processor config file the workflow evaluates (`eval run --config`), relative to the
   * repository root, when the repository holds it already; else init writes `config` to
   * `configs/<dataset>.json` and the workflow evaluates that.
   */
  configFile?: string;
}

export interface ScaffoldFile {
  kind: 'config' | 'csv' | 'workflow' | 'processor-config';
  /** Relative to the folder init writes in (the repository root). */
  file: string;
  text: string;
}

/** A dataset name from a processor name or file name: `Invoice extraction` -> `invoice-extraction`. */
export function datasetNameFrom(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[-_.]+|[-_.]+$/g, '')
    .toLowerCase();
  return slug || 'default';
}

export const EXAMPLE_FILE = 'files/example.pdf';

function example(node: Node): string {
  switch (node.kind) {
    case 'string':
      return 'example';
    case 'number':
      return node.integer ? '1' : '1.5';
    case 'boolean':
      return 'true';
    case 'date':
      return '2025-01-31';
    case 'currency':
      return '100.00 USD';
    case 'enum':
      return String(node.values[0] ?? '');
    default:
      return '';
  }
}

/** Leaf columns of an EXTRACT model: objects by dotted path, arrays by their first item. */
function fieldColumns(fields: Record<string, Node>): Array<{ header: string; value: string; segs: Segment[] }> {
  const out: Array<{ header: string; value: string; segs: Segment[] }> = [];
  const walk = (node: Node, at: Segment[]): void => {
    if (node.kind === 'object') {
      for (const [key, child] of Object.entries(node.properties)) walk(child, [...at, key]);
      return;
    }
    if (node.kind === 'array') return walk(node.items, [...at, 0]);
    out.push({ header: formatPath(at), value: example(node), segs: at });
  };
  walk({ kind: 'object', properties: fields }, []);
  return out;
}

/** A header must read back as the path it was written from (`a.b` is two keys, not one); else the fields go in one JSON cell. */
function roundTrips(header: string, segs: readonly Segment[]): boolean {
  const back = parsePath(header);
  return back !== undefined && back.length === segs.length && back.every((s, i) => s === segs[i]);
}

function exampleOutput(node: Node): unknown {
  switch (node.kind) {
    case 'object':
      return Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, exampleOutput(v)]));
    case 'array':
      return [exampleOutput(node.items)];
    case 'number':
      return node.integer ? 1 : 1.5;
    case 'boolean':
      return true;
    case 'currency':
      return { amount: 100, iso_4217_currency_code: 'USD' };
    case 'enum':
      return node.values[0] ?? null;
    case 'any':
      return null;
    default:
      return example(node);
  }
}

/** Header and one example row for `dataset upload` (file paths relative to the CSV). */
export function csvTemplate(model: ExpectedModel): string {
  const cols: Array<{ header: string; value: string }> = [{ header: 'file', value: EXAMPLE_FILE }];
  if (model.type === 'CLASSIFY') cols.push({ header: 'class', value: model.classifications[0]?.id ?? 'example' });
  else if (model.type === 'SPLITTER') cols.push({ header: 'splits', value: `${model.classifications[0]?.id ?? 'example'}:1-2` });
  else {
    const fields = fieldColumns(model.fields);
    if (fields.every((f) => roundTrips(f.header, f.segs))) cols.push(...fields.map(({ header, value }) => ({ header, value })));
    else cols.push({ header: 'expectedOutput', value: JSON.stringify(exampleOutput({ kind: 'object', properties: model.fields })) });
  }
  cols.push({ header: '# notes', value: `an example row: replace it with your documents (${EXAMPLE_FILE} does not exist)` });
  const line = (cells: string[]): string => cells.map((c) => quoteCell(c, ',')).join(',');
  return `${line(cols.map((c) => c.header))}\n${line(cols.map((c) => c.value))}\n`;
}

/**
 * The base URL to commit, or why not: a loopback address (127.0.0.0/8, ::1, localhost and
 * *.localhost, the unspecified 0.0.0.0 and ::) exists only on the machine init ran on, and a
 * sandbox's address (its tokens start with sk_sandbox_) is a local stand-in wherever it listens.
 */
export function baseUrlToCommit(baseUrl: string | undefined, token?: string): { baseUrl?: string; omitted?: string } {
  if (baseUrl === undefined) return {};
  // What the client would refuse is not committed either: a user name, password, query string or
  // fragment may be a credential (UsageError, never quoting the value).
  normalizeBaseUrl(baseUrl);
  const host = new URL(baseUrl).hostname.toLowerCase();
  const bare = host.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(bare)) return { omitted: `${baseUrl} is a loopback address` };
  if (bare === '0.0.0.0' || bare === '::') return { omitted: `${baseUrl} is this machine's unspecified address` };
  if (token?.startsWith(DEV_TOKEN_PREFIX)) return { omitted: `${baseUrl} is a sandbox's address (the token is a sandbox token)` };
  return { baseUrl };
}

/** Where init puts the processor config the workflow evaluates, when the repository has none. */
export const processorConfigPath = (dataset: string): string => `configs/${dataset}.json`;

export function configDocument(input: ScaffoldInput): EvalkitConfig {
  const section: DatasetSettings = {
    ...(input.processorId ? { processor: input.processorId } : {}),
    ...(input.evaluationSet ? { evaluationSet: input.evaluationSet } : {}),
    csv: input.csv,
    export: `reports/${input.dataset}.json`,
    outDir: `reports/${input.dataset}`,
    fuzzyFields: [],
    excludeFields: [],
    gates: [],
  };
  return {
    $schema: input.schemaRef,
    ...(input.apiVersion ? { apiVersion: input.apiVersion } : {}),
    // Never this machine's address, whoever calls (the CLI also says why it left one out).
    ...(baseUrlToCommit(input.baseUrl).baseUrl ? { baseUrl: input.baseUrl } : {}),
    datasets: { [input.dataset]: section },
  };
}

/** The files, config first; the processor config last, when the repository does not hold it. */
export function scaffold(input: ScaffoldInput): ScaffoldFile[] {
  const model = buildModel(input.config, input.type);
  const doc = configDocument(input);
  const processorConfig = input.configFile ?? processorConfigPath(input.dataset);
  const files: ScaffoldFile[] = [
    { kind: 'config', file: CONFIG_FILE_NAME, text: renderSettings(doc) },
    { kind: 'csv', file: input.csv, text: csvTemplate(model) },
    { kind: 'workflow', file: WORKFLOW_FILE, text: renderWorkflow({ configFile: CONFIG_FILE_NAME, dataset: input.dataset, reportsDir: doc.datasets![input.dataset].outDir!, processorConfig }) },
  ];
  if (input.configFile === undefined) files.push({ kind: 'processor-config', file: processorConfig, text: `${JSON.stringify(input.config, null, 2)}\n` });
  return files;
}

/**
 * evalkit.config.json: found (the nearest one upward from a folder), read, checked against
 * schemas/evalkit-config.schema.json (every error names the file, line and JSON pointer), and
 * its dataset section picked. What each member fills on the command line is the CLI's business
 * (src/cli/settings.ts); this module only knows the document.
 */
import { constants as fsConstants, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';
import { EvalkitError, InputError, UsageError } from '../util/errors.js';
import { escapePointerToken, fromPointer, isPlainObject, lineColumnAt, parseJson, toPointer } from '../util/json.js';
import type { DatasetSettings, EvalkitConfig } from './generated/evalkit-config.js';
// ajv's standalone code for the schema (npm run gen:validators): importing ajv itself costs more than the check.
import { validate as validateSchema } from './generated/validator.js';
import { kindOf, SCHEMA_FILE } from './find.js';

export type { DatasetSettings, EvalkitConfig };
export { CONFIG_FILE_NAME, findSettingsFile, SCHEMA_FILE } from './find.js';
const HINT = `see docs/configuration.md (the schema is ${SCHEMA_FILE})`;
/** The largest config file read (docs/configuration.md). */
export const MAX_SETTINGS_BYTES = 4 * 1024 * 1024;

export interface LoadedSettings {
  /** The file, as found or given. */
  file: string;
  /** Relative paths of the file are relative to this folder. */
  dir: string;
  config: EvalkitConfig;
}

export interface PickedDataset {
  name: string;
  settings: DatasetSettings;
}

interface SchemaValidator {
  (doc: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/**
 * Keys that would hold a credential. The token is read from EVALKIT_API_TOKEN only: a config file
 * is committed and shared, so one that holds it is refused rather than read or ignored.
 */
const SECRET_KEY = /token|secret|password|passwd|credential|authorization|api[-_]?key/i;

function refuseSecrets(doc: Record<string, unknown>, file: string, text: string): void {
  const places: Array<{ obj: Record<string, unknown>; at: string[] }> = [{ obj: doc, at: [] }];
  if (isPlainObject(doc.datasets)) {
    for (const [name, section] of Object.entries(doc.datasets)) if (isPlainObject(section)) places.push({ obj: section, at: ['datasets', name] });
  }
  for (const { obj, at } of places) {
    for (const key of Object.keys(obj)) {
      if (!SECRET_KEY.test(key)) continue;
      const segs = [...at, key];
      throw new InputError(`"${key}": the API token is never read from the config file`, {
        location: { file, ...lineOf(text, segs), pointer: toPointer(segs) },
        hint: 'remove the key (and the secret from the file and its history); set EVALKIT_API_TOKEN in the environment instead (in CI: a secret)',
      });
    }
  }
}

/** A base URL with a user name, password, query string or fragment: a credential in a committed file (the client refuses such a URL anyway). */
function refuseUrlCredentials(doc: Record<string, unknown>, file: string, text: string): void {
  if (typeof doc.baseUrl !== 'string') return;
  let url: URL;
  try {
    url = new URL(doc.baseUrl);
  } catch {
    return; // the schema check says what is wrong with it
  }
  // Never quoted back: the message names the pointer, not the value.
  const location = { file, ...lineOf(text, ['baseUrl']), pointer: '/baseUrl' };
  if (url.username !== '' || url.password !== '') {
    throw new InputError('"baseUrl" holds a user name or password', {
      location,
      hint: 'remove them from the URL (and from the file and its history); the API token goes in EVALKIT_API_TOKEN',
    });
  }
  // A query string or fragment is where a pasted token goes too, and the client refuses it.
  if (url.search !== '' || url.hash !== '') {
    throw new InputError('"baseUrl" has a query string or fragment', {
      location,
      hint: 'set the base URL alone (scheme, host, port and path prefix), such as https://api.example.com/v1; if a token was in it, remove it from the file and its history: it goes in EVALKIT_API_TOKEN',
    });
  }
}

function lineOf(text: string, segs: ReadonlyArray<string | number>): { line?: number; column?: number } {
  const tree = parseTree(text);
  // A pointer's segments are strings: `0` is an index in an array (`/datasets/x/gates/0`), a key in an object.
  let node = tree;
  for (const seg of segs) {
    if (!node) break;
    node = node.type === 'array' && /^\d+$/.test(String(seg)) ? node.children?.[Number(seg)] : node.type === 'object' ? findNodeAtLocation(node, [String(seg)]) : undefined;
  }
  // A member's key is where a reader looks: the property node's start.
  const at = node?.parent?.type === 'property' ? node.parent : node;
  return at ? lineColumnAt(text, at.offset) : {};
}

/**
 * A key written twice in one object: JSON.parse keeps the last value without a word, so a setting
 * copied lower down (a second "gates", a second "apiVersion") would silently win. Refused, naming
 * the second one's line.
 */
function refuseDuplicateKeys(text: string, file: string): void {
  const walk = (node: Node | undefined, segs: string[]): void => {
    if (node?.type === 'array') node.children?.forEach((c, i) => walk(c, [...segs, String(i)]));
    if (node?.type !== 'object') return;
    const seen = new Set<string>();
    for (const prop of node.children ?? []) {
      const key = String(prop.children?.[0]?.value);
      if (seen.has(key)) {
        throw new InputError(`${JSON.stringify(key)} appears twice in this object: JSON keeps the last value and drops the other without a word`, {
          location: { file, ...lineColumnAt(text, prop.offset), pointer: toPointer([...segs, key]) },
          hint: 'keep one of the two (today the one lower down is read), then run again',
        });
      }
      seen.add(key);
      walk(prop.children?.[1], [...segs, key]);
    }
  };
  if (text) walk(parseTree(text), []);
}

/** One readable line per schema error: `unknown key "x"`, `must be a number`. */
function describeError(e: ErrorObject): { pointer: string; message: string } {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return { pointer: `${e.instancePath}/${escapePointerToken(String(p.additionalProperty))}`, message: `unknown key "${String(p.additionalProperty)}"` };
    case 'propertyNames':
      return { pointer: `${e.instancePath}/${escapePointerToken(String(p.propertyName))}`, message: `dataset name "${String(p.propertyName)}" must start with a letter or digit and hold only letters, digits, ".", "_" and "-"` };
    case 'pattern':
      if (/\/gates\/\d+$/.test(e.instancePath)) return { pointer: e.instancePath, message: 'a gate is METRIC>=N, METRIC<=N or METRIC=N, the same as >= (for example micro.f1>=0.9)' };
      if (e.instancePath === '/baseUrl') return { pointer: e.instancePath, message: 'must be an http(s) address such as http://127.0.0.1:8787' };
      if (e.instancePath === '/apiVersion') return { pointer: e.instancePath, message: 'must be a release date YYYY-MM-DD such as 2025-04-21' };
      if (e.instancePath === '/workspaceId') return { pointer: e.instancePath, message: 'must be the workspace id alone (printable characters, no spaces)' };
      if (p.pattern === '\\S') return { pointer: e.instancePath, message: 'must not be empty' };
      return { pointer: e.instancePath, message: `must match ${String(p.pattern)}` };
    case 'enum':
      return { pointer: e.instancePath, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'type':
      return { pointer: e.instancePath, message: `must be ${p.type === 'object' ? 'an object' : p.type === 'array' ? 'an array' : `a ${String(p.type)}`}` };
    default:
      return { pointer: e.instancePath, message: e.message ?? e.keyword };
  }
}

/** Checks a parsed document; `text` (when known) gives the line of each problem. */
export async function checkSettings(doc: unknown, file: string, text = ''): Promise<EvalkitConfig> {
  if (!isPlainObject(doc)) throw new InputError('the config file must hold a JSON object', { location: { file, pointer: '' }, hint: HINT });
  refuseDuplicateKeys(text, file);
  refuseSecrets(doc, file, text);
  refuseUrlCredentials(doc, file, text);
  const validate = validateSchema as SchemaValidator;
  if (!validate(doc)) {
    const errors = (validate.errors ?? []).map(describeError);
    // The deepest problem first: `unknown key` in a section says more than the section's own failure.
    errors.sort((a, b) => b.pointer.split('/').length - a.pointer.split('/').length);
    const first = errors[0];
    const more = errors.length > 1 ? `; also ${errors.slice(1, 4).map((x) => `${x.pointer || '/'}: ${x.message}`).join('; ')}${errors.length > 4 ? ` (and ${errors.length - 4} more)` : ''}` : '';
    throw new InputError(`invalid config: ${first.message}${more}`, { location: { file, ...lineOf(text, fromPointer(first.pointer)), pointer: first.pointer }, hint: HINT });
  }
  const config = doc as EvalkitConfig;
  const sections = Object.entries(config.datasets ?? {});
  if (!sections.some(([, x]) => x.gates?.length)) return config;
  const { parseGates } = await import('../report/gates.js');
  for (const [name, section] of sections) {
    (section.gates ?? []).forEach((gate, i) => {
      try {
        parseGates([gate], 'gate');
      } catch (e) {
        if (!(e instanceof EvalkitError)) throw e;
        const segs = ['datasets', name, 'gates', i];
        throw new InputError(`invalid ${e.message}`, { location: { file, ...lineOf(text, segs), pointer: toPointer(segs) }, hint: e.hint });
      }
    });
  }
  return config;
}

/** Reads and checks a config file. Exit 2 (InputError) naming the file and pointer when it is not valid. */
export async function readSettings(file: string): Promise<LoadedSettings> {
  let text: string;
  let handle: fsp.FileHandle | undefined;
  try {
    // Checked before a byte is read: a pipe or a device (/dev/urandom) is never read, and a
    // regular file only up to the limit. O_NONBLOCK: opening a named pipe does not wait for a writer.
    handle = await fsp.open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile()) throw new InputError(`not a regular file (${kindOf(st)})`, { location: { file }, hint: 'name a JSON config file with --config-file' });
    if (st.size > MAX_SETTINGS_BYTES) throw new InputError(`the config file is ${(st.size / 2 ** 20).toFixed(1)} MiB; the limit is ${MAX_SETTINGS_BYTES / 2 ** 20} MiB`, { location: { file }, hint: 'a config file holds settings, not data: name the right file with --config-file' });
    text = await handle.readFile('utf8');
  } catch (e) {
    if (e instanceof EvalkitError) throw e;
    throw new InputError(`cannot read the config file: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { location: { file }, hint: 'check the --config-file path' });
  } finally {
    await handle?.close().catch(() => undefined);
  }
  const config = await checkSettings(parseJson(text, file), file, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  return { file, dir: path.dirname(path.resolve(file)), config };
}

export function datasetNames(loaded: LoadedSettings): string[] {
  return Object.keys(loaded.config.datasets ?? {});
}

/**
 * The dataset section to use: the one named, or the only one. Undefined when the file has several
 * and none was named (the caller decides whether that matters). An unknown name is a usage error.
 */
export function pickDataset(loaded: LoadedSettings, name: string | undefined): PickedDataset | undefined {
  const datasets = loaded.config.datasets ?? {};
  const names = Object.keys(datasets);
  if (name !== undefined) {
    if (!Object.hasOwn(datasets, name)) {
      throw new UsageError(`--dataset ${name}: ${loaded.file} has no dataset of that name`, {
        hint: names.length ? `choose from ${names.join(', ')}` : `add a section under "datasets" in ${loaded.file} (or run evalkit init)`,
      });
    }
    return { name, settings: datasets[name] };
  }
  return names.length === 1 ? { name: names[0], settings: datasets[names[0]] } : undefined;
}

/** A path member of the file, made absolute against the file's folder. */
export function resolveSettingsPath(loaded: LoadedSettings, p: string): string {
  return path.resolve(loaded.dir, p);
}

/** The text of a config document as evalkit writes it: `$schema` first, two-space JSON. */
export function renderSettings(config: EvalkitConfig): string {
  const { $schema, ...rest } = config;
  return JSON.stringify($schema === undefined ? rest : { $schema, ...rest }, null, 2) + '\n';
}

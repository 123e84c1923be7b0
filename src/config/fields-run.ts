import { InputError } from '../util/errors.js';
import { isPlainObject, toPointer } from '../util/json.js';
import { at, resolveType, type Segment, type Site } from './detect.js';
import { convertFields, isFieldsOutput, type FieldInfo } from './fields-schema.js';
import { LATEST_LAYOUT, isProcessorType, type MigrateOptions } from './types.js';
import { findSpots } from './walk.js';

/**
 * One `--convert-fields` run (docs/migrate.md, "Fields-form configs"): the fields-form EXTRACT
 * configs going up to 2026-02-09 and the fields-form expected outputs in the documents of one
 * call (the files of a command, one text, one document), paired before anything is migrated.
 * A config converts only together with its items (or with `noItems`), an item only with its
 * config: the output form changes with the config.
 *
 * Pairing, first rule that applies:
 * 1. the processor the item names (`processorId`, `extractorId`, a 2026-02-09 set's
 *    `entity.id`, on the item or an object around it) -> the config of that processor
 *    (its `processorId`, or the `id` of the processor around it); the run's only config when
 *    that names no processor;
 * 2. the only fields-form config in the item's own file;
 * 3. the only fields-form config in the run.
 * Anything else (no config, several that fit) refuses the item, naming the candidates.
 */

interface ConfigEntry {
  key: string;
  /** `file[:line] at pointer`, for messages. */
  shown: string;
  file: string | undefined;
  processorId: string | undefined;
  fields: Map<string, FieldInfo> | undefined;
  /** Why the fields cannot be converted (the config's own error is reported at the config). */
  broken: boolean;
  items: number;
}

interface ItemEntry {
  key: string;
  file: string | undefined;
  processorId: string | undefined;
  site: Site;
  config?: ConfigEntry;
  error?: InputError;
}

export interface RunDocument {
  doc: unknown;
  file?: string;
  line?: number;
}

function keyOf(file: string | undefined, line: number | undefined, path: readonly Segment[]): string {
  return `${file ?? ''}\u0000${line ?? ''}\u0000${toPointer(path)}`;
}

function shownAt(file: string | undefined, line: number | undefined, path: readonly Segment[]): string {
  return `${file ?? '(input)'}${line !== undefined ? `:${line}` : ''} at ${toPointer(path) || '/'}`;
}

/** The objects a path passes through, the innermost last (the value at the path itself included). */
function objectsOn(doc: unknown, path: readonly Segment[]): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  let cur: unknown = doc;
  if (isPlainObject(cur)) out.push(cur);
  for (const k of path) {
    cur = cur !== null && typeof cur === 'object' && Object.hasOwn(cur, k) ? (cur as Record<string | number, unknown>)[k] : undefined;
    if (isPlainObject(cur)) out.push(cur);
  }
  return out;
}

const PROCESSOR_OBJECTS = new Set(['document_processor', 'extractor']);

/** The processor a config belongs to, from the objects around it. */
function configProcessor(objects: ReadonlyArray<Record<string, unknown>>): string | undefined {
  // The config itself (the last object) says nothing of its processor.
  for (let i = objects.length - 2; i >= 0; i--) {
    const o = objects[i];
    if (typeof o.processorId === 'string') return o.processorId;
    if (typeof o.extractorId === 'string') return o.extractorId;
    // A processor (2025-04-21 object, 2026-02-09 extractor, an export's `processor`).
    if (typeof o.id === 'string' && (PROCESSOR_OBJECTS.has(o.object as string) || (o.object === undefined && o.type === 'EXTRACT'))) return o.id;
  }
  return undefined;
}

/** The processor an item names, from itself and the objects around it. */
function itemProcessor(objects: ReadonlyArray<Record<string, unknown>>): string | undefined {
  // The expected output itself (the last object) is data.
  for (let i = objects.length - 2; i >= 0; i--) {
    const o = objects[i];
    if (typeof o.processorId === 'string') return o.processorId;
    if (typeof o.extractorId === 'string') return o.extractorId;
    if (isPlainObject(o.entity) && typeof o.entity.id === 'string') return o.entity.id;
    if (isPlainObject(o.processor) && typeof o.processor.id === 'string') return o.processor.id;
  }
  return undefined;
}

export class FieldsRun {
  private readonly configs = new Map<string, ConfigEntry>();
  private readonly items = new Map<string, ItemEntry>();
  private paired = false;

  constructor(private readonly opts: MigrateOptions) {}

  /** Looks at one document of the run (before pair()). Documents that do not parse are skipped: their migration reports them. */
  add({ doc, file, line }: RunDocument): void {
    if (this.opts.to !== LATEST_LAYOUT) return;
    for (const spot of findSpots(doc)) {
      const objects = objectsOn(doc, spot.path);
      const value = objects[objects.length - 1];
      if (!value || value !== valueAtPath(doc, spot.path)) continue;
      const site: Site = { file, line, path: spot.path };
      if (spot.kind === 'config') {
        if (value.fields === undefined || !this.isExtract(value, site, spot.envelope)) continue;
        let fields: Map<string, FieldInfo> | undefined;
        try {
          fields = convertFields(value, site).fields;
        } catch {
          fields = undefined;
        }
        const key = keyOf(file, line, spot.path);
        this.configs.set(key, { key, shown: shownAt(file, line, [...spot.path, 'fields']), file, processorId: configProcessor(objects), fields, broken: fields === undefined, items: 0 });
      } else if (spot.expected && isFieldsOutput(value)) {
        const given = spot.envelope?.value;
        if (isProcessorType(given) && given !== 'EXTRACT') continue;
        const key = keyOf(file, line, spot.path);
        this.items.set(key, { key, file, processorId: itemProcessor(objects), site });
      }
    }
  }

  private isExtract(config: Record<string, unknown>, site: Site, envelope: Parameters<typeof resolveType>[2]): boolean {
    try {
      return resolveType(config, site, envelope, this.opts.type, []) === 'EXTRACT';
    } catch {
      return false;
    }
  }

  /** Pairs every item with its config (after every document is added). */
  pair(): this {
    const configs = [...this.configs.values()];
    for (const item of this.items.values()) {
      const fit = this.candidates(item, configs);
      if (fit.length === 1) {
        item.config = fit[0];
        fit[0].items++;
      } else item.error = this.pairingError(item, fit, configs);
    }
    this.paired = true;
    return this;
  }

  private candidates(item: ItemEntry, configs: ConfigEntry[]): ConfigEntry[] {
    if (item.processorId !== undefined) {
      const named = configs.filter((c) => c.processorId === item.processorId);
      if (named.length) return named;
      return configs.length === 1 && configs[0].processorId === undefined ? configs : [];
    }
    const sameFile = configs.filter((c) => c.file === item.file);
    return sameFile.length === 1 ? sameFile : configs;
  }

  private pairingError(item: ItemEntry, fit: ConfigEntry[], configs: ConfigEntry[]): InputError {
    const location = at(item.site);
    if (fit.length > 1) {
      return new InputError(`a fields-form EXTRACT expected output fits ${fit.length} fields-form configs of this run (${fit.map((c) => c.shown).join('; ')}): which one converts it is not certain`, {
        location,
        hint: 'migrate each processor\'s config with its own items in separate commands, or name the processor on the items ("processorId")',
      });
    }
    const named = item.processorId !== undefined ? ` of processor ${item.processorId}` : '';
    const others = configs.length ? ` (the run's fields-form configs: ${configs.map((c) => `${c.shown}${c.processorId ? ` of processor ${c.processorId}` : ''}`).join('; ')})` : '';
    return new InputError(`a fields-form EXTRACT expected output, and no fields-form config${named} in this run to convert it with${others}`, {
      location,
      hint: `its form depends on the config: pass the processor's config file in the same command (evalkit migrate CONFIG.json ITEMS.jsonl --to ${LATEST_LAYOUT} --convert-fields)`,
    });
  }

  /** Throws when the config at `site` is one this run refuses to convert (no items, unless noItems). */
  checkConfig(site: Site): void {
    const c = this.configs.get(keyOf(site.file, site.line, site.path));
    if (!c || !this.paired || c.items > 0 || this.opts.noItems) return;
    throw new InputError(`converting this fields-form config to a schema changes the form of its evaluation set items' expected outputs, and none of them is in this run`, {
      location: at(site, 'fields'),
      hint: `pass its items (evaluation set item files, JSONL of items, exports) in the same command, or --no-items if its processor has no evaluation set items (or they are in the value form already)`,
    });
  }

  /** The fields to convert the item at `site` with, and where its config is; throws when it pairs with none. */
  itemFields(site: Site): { fields: ReadonlyMap<string, FieldInfo>; configAt: string } {
    const item = this.items.get(keyOf(site.file, site.line, site.path));
    if (!item) throw this.pairingError({ key: '', file: site.file, processorId: undefined, site }, [], [...this.configs.values()]);
    if (item.error) throw item.error;
    const c = item.config!;
    if (!c.fields) {
      throw new InputError(`the fields-form config it converts with (${c.shown}) cannot be converted`, { location: at(site), hint: 'fix that config (its error is reported with it), then migrate both' });
    }
    return { fields: c.fields, configAt: c.shown };
  }
}

function valueAtPath(doc: unknown, path: readonly Segment[]): unknown {
  let cur = doc;
  for (const k of path) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
}

/** A run of documents: added, then paired. */
export function fieldsRunOf(docs: Iterable<RunDocument>, opts: MigrateOptions): FieldsRun {
  const run = new FieldsRun(opts);
  for (const d of docs) run.add(d);
  return run.pair();
}

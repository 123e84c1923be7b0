import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { InputError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { inferTypeOrNull } from './detect.js';
import { isProcessorType, LAYOUTS } from './types.js';
import type { Finding, Layout, ProcessorType } from './types.js';

const DEFS: Record<ProcessorType, string> = { EXTRACT: 'extract', CLASSIFY: 'classify', SPLITTER: 'splitter' };

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function schemaId(layout: Layout): string {
  return `https://evalkit.dev/schemas/config-${layout}.schema.json`;
}

/** One validator per layout and type, compiled once per process. */
function validator(layout: Layout, type: ProcessorType): ValidateFunction {
  const key = `${layout}/${type}`;
  let fn = compiled.get(key);
  if (fn) return fn;
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
    for (const l of LAYOUTS) {
      const url = new URL(`../../schemas/config-${l}.schema.json`, import.meta.url);
      ajv.addSchema(JSON.parse(readFileSync(url, 'utf8')) as object);
    }
  }
  fn = ajv.getSchema(`${schemaId(layout)}#/$defs/${DEFS[type]}`);
  if (!fn) throw new Error(`schema ${schemaId(layout)} has no $defs/${DEFS[type]}`);
  compiled.set(key, fn);
  return fn;
}

/**
 * Problems of a config against the JSON Schema of `layout` (schemas/config-<layout>.schema.json),
 * each with the JSON pointer of the member at fault. The type is `type`, else the config's own,
 * else inferred from its keys. Empty when valid.
 */
export function validateConfig(config: unknown, layout: Layout, type?: ProcessorType): Finding[] {
  if (!LAYOUTS.includes(layout)) throw new InputError(`unknown layout "${String(layout)}"`, { hint: `use ${LAYOUTS.join(' or ')}` });
  if (!isPlainObject(config)) return [{ pointer: '', message: 'must be a JSON object' }];
  const t = type ?? (isProcessorType(config.type) ? config.type : inferTypeOrNull(config));
  if (!t) {
    if (config.type !== undefined) return [{ pointer: '/type', message: `must be EXTRACT, CLASSIFY or SPLITTER (got ${JSON.stringify(config.type)})` }];
    return [{ pointer: '', message: 'cannot tell the processor type; add "type" to the config' }];
  }
  const fn = validator(layout, t);
  if (fn(config)) return [];
  return (fn.errors ?? []).filter((e) => e.keyword !== 'if').map(toFinding);
}

function toFinding(e: ErrorObject): Finding {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { pointer: e.instancePath, message: `missing required member "${String(p.missingProperty)}"` };
    case 'dependentRequired':
      return { pointer: e.instancePath, message: `"${String(p.property)}" needs "${String(p.missingProperty)}"` };
    case 'enum':
      return { pointer: e.instancePath, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { pointer: e.instancePath, message: `must be ${JSON.stringify(p.allowedValue)}` };
    default:
      return { pointer: e.instancePath, message: e.message ?? e.keyword };
  }
}

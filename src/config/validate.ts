import type { ErrorObject } from 'ajv';
import { InputError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { inferTypeOrNull } from './detect.js';
import * as validators from './generated/validators.js';
import { isProcessorType, LAYOUTS, PROCESSOR_TYPES } from './types.js';
import type { Finding, Layout, ProcessorType } from './types.js';

/** A validator generated ahead of time from schemas/ (ajv standalone code; see scripts/gen-validators.mjs). */
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const VALIDATORS = new Map<string, Validate>();
for (const layout of LAYOUTS) {
  for (const type of PROCESSOR_TYPES) VALIDATORS.set(layout + type, (validators as Record<string, Validate>)[`${type.toLowerCase()}_${layout.replaceAll('-', '')}`]);
}

function validator(layout: Layout, type: ProcessorType): Validate {
  return VALIDATORS.get(layout + type)!;
}

/**
 * Problems of a config against the JSON Schema of `layout` (schemas/config-<layout>.schema.json),
 * each with the JSON pointer of the member at fault. The type is `type`, else the config's own,
 * else inferred from its keys. Empty when valid. `partial`: a run's overrideConfig, whose members
 * are all optional (spec 3.1): no member is reported missing.
 */
export function validateConfig(config: unknown, layout: Layout, type?: ProcessorType, opts: { partial?: boolean } = {}): Finding[] {
  if (!LAYOUTS.includes(layout)) throw new InputError(`unknown layout "${String(layout)}"`, { hint: `use ${LAYOUTS.join(' or ')}` });
  if (!isPlainObject(config)) return [{ pointer: '', message: 'must be a JSON object' }];
  const t = type ?? (isProcessorType(config.type) ? config.type : inferTypeOrNull(config));
  if (!t) {
    if (config.type !== undefined) return [{ pointer: '/type', message: `must be EXTRACT, CLASSIFY or SPLITTER (got ${JSON.stringify(config.type)})` }];
    return [{ pointer: '', message: 'cannot tell the processor type; add "type" to the config' }];
  }
  const fn = validator(layout, t);
  if (fn(config)) return [];
  // A partial config (a run's overrideConfig) lacks required members by design.
  return (fn.errors ?? []).filter((e) => e.keyword !== 'if' && !(opts.partial && e.keyword === 'required')).map(toFinding);
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
    case 'false schema':
      return { pointer: e.instancePath, message: 'has no place in this layout: remove it, or migrate the config (evalkit migrate)' };
    default:
      return { pointer: e.instancePath, message: e.message ?? e.keyword };
  }
}

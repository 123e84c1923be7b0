/**
 * JSON Schemas of the official SDK's response types, generated from its own `.d.ts` with
 * ts-json-schema-generator, and a run-time check of a response against them.
 *
 * Generation takes a few seconds, so the result is cached under node_modules/.cache, keyed by
 * the SDK's version and the list of types. Two rules are applied to the generated schemas, each
 * one written down where the documents say so:
 *
 * - Fern's optional members are often `null` on the wire (service-facts.md): an optional member
 *   may be `null`. Required members stay required and non-null.
 * - Where service-api.md speaks and the SDK's types differ, the spec wins (README, sandbox
 *   section): SPEC_WINS lists each such member; nothing else is relaxed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SDK_DIR = path.join(ROOT, 'node_modules/extend-ai');

/** SDK method -> its response type (the `T` of `HttpResponsePromise<T>` in the client's .d.ts). */
export const RESPONSE_TYPES = {
  'workflowRun.list': 'WorkflowRunListResponse',
  'workflowRun.create': 'WorkflowRunCreateResponse',
  'workflowRun.get': 'WorkflowRunGetResponse',
  'workflowRun.update': 'WorkflowRunUpdateResponse',
  'workflowRun.delete': 'WorkflowRunDeleteResponse',
  'workflowRun.cancel': 'WorkflowRunCancelResponse',
  'batchWorkflowRun.create': 'BatchWorkflowRunCreateResponse',
  'processorRun.list': 'ProcessorRunListResponse',
  'processorRun.create': 'ProcessorRunCreateResponse',
  'processorRun.get': 'ProcessorRunGetResponse',
  'processorRun.delete': 'ProcessorRunDeleteResponse',
  'processorRun.cancel': 'ProcessorRunCancelResponse',
  'processor.list': 'ListProcessorsResponse',
  'processor.create': 'ProcessorCreateResponse',
  'processor.update': 'ProcessorUpdateResponse',
  'processorVersion.get': 'ProcessorVersionGetResponse',
  'processorVersion.list': 'ProcessorVersionListResponse',
  'processorVersion.create': 'ProcessorVersionCreateResponse',
  'parserRun.get': 'ParserRunGetResponse',
  'parserRun.delete': 'ParserRunDeleteResponse',
  'file.list': 'FileListResponse',
  'file.get': 'FileGetResponse',
  'file.delete': 'FileDeleteResponse',
  'file.upload': 'FileUploadResponse',
  'evaluationSet.list': 'EvaluationSetListResponse',
  'evaluationSet.create': 'EvaluationSetCreateResponse',
  'evaluationSet.get': 'EvaluationSetGetResponse',
  'evaluationSetItem.list': 'EvaluationSetItemListResponse',
  'evaluationSetItem.create': 'EvaluationSetItemCreateResponse',
  'evaluationSetItem.update': 'EvaluationSetItemUpdateResponse',
  'evaluationSetItem.delete': 'EvaluationSetItemDeleteResponse',
  'evaluationSetItem.createBatch': 'EvaluationSetItemCreateBatchResponse',
  'workflowRunOutput.update': 'WorkflowRunOutputUpdateResponse',
  'batchProcessorRun.get': 'BatchProcessorRunGetResponse',
  'workflow.create': 'WorkflowCreateResponse',
  parse: 'ParserRun',
  parseAsync: 'ParserRunStatus',
} as const;
export type SdkMethod = keyof typeof RESPONSE_TYPES;

/**
 * Members where service-api.md says something else than the SDK's types, and the sandbox
 * follows the spec: [definition, member, what the spec says]. Listed in the README too.
 */
export const SPEC_WINS: ReadonlyArray<{ method?: SdkMethod; definition: string; member: string; rule: 'optional' | 'nullable'; spec: string }> = [
  { method: 'processor.create', definition: 'Processor', member: 'draftVersion', rule: 'optional', spec: '4.8: create answers {success, processor} without draftVersion' },
  { definition: 'ProcessorRun', member: 'output', rule: 'nullable', spec: '2.2 and part 3: output is null until the run is processed' },
];

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[]; definitions?: Record<string, Schema> };

function sdkVersion(): string {
  return (JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8')) as { version: string }).version;
}

function entryText(): string {
  const lines = Object.entries(RESPONSE_TYPES).map(([m, t]) => `  ${JSON.stringify(m)}: Extend.${t};`);
  return `import type * as Extend from ${JSON.stringify(path.join(SDK_DIR, 'api/index'))};\nexport interface SdkResponses {\n${lines.join('\n')}\n}\n`;
}

/** The generated schema (definitions of every type reachable from the responses), from the cache when it is there. */
export async function generatedSchema(): Promise<Schema> {
  const text = entryText();
  const key = createHash('sha256').update(text).update(sdkVersion()).digest('hex').slice(0, 16);
  const dir = path.join(ROOT, 'node_modules/.cache/evalkit-contract', `extend-ai-${sdkVersion()}-${key}`);
  const cached = path.join(dir, 'schema.json');
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as Schema;
  mkdirSync(dir, { recursive: true });
  const entry = path.join(dir, 'entry.ts');
  writeFileSync(entry, text);
  const { createGenerator } = await import('ts-json-schema-generator');
  const schema = createGenerator({ path: entry, type: 'SdkResponses', skipTypeCheck: true, expose: 'all', topRef: true, jsDoc: 'none', additionalProperties: true }).createSchema('SdkResponses') as Schema;
  const tmp = `${cached}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(schema));
  renameSync(tmp, cached);
  return schema;
}

function refName(s: Schema | undefined): string | undefined {
  const ref = s?.$ref;
  return typeof ref === 'string' ? decodeURIComponent(ref.replace('#/definitions/', '')) : undefined;
}

function nullable(s: Schema): Schema {
  return { anyOf: [s, { type: 'null' }] };
}

/** Optional members may be null (Fern), recursively over every object schema. */
function optionalMayBeNull(s: unknown): void {
  if (Array.isArray(s)) return s.forEach(optionalMayBeNull);
  if (s === null || typeof s !== 'object') return;
  const o = s as Schema;
  if (o.properties) {
    const required = new Set(o.required ?? []);
    for (const [k, v] of Object.entries(o.properties)) {
      optionalMayBeNull(v);
      if (!required.has(k)) o.properties[k] = nullable(v);
    }
  }
  for (const [k, v] of Object.entries(o)) if (k !== 'properties') optionalMayBeNull(v);
}

function applySpecWins(schema: Schema): void {
  const defs = schema.definitions as Record<string, Schema>;
  for (const w of SPEC_WINS) {
    let target = defs[w.definition];
    if (w.method) {
      // Only for this method's response: a copy of the definition, referenced from it.
      const response = defs[RESPONSE_TYPES[w.method]];
      const copyName = `${w.definition}__${w.method}`;
      target = defs[copyName] = structuredClone(defs[w.definition]);
      for (const [k, v] of Object.entries(response.properties ?? {})) {
        if (refName(v) === w.definition) (response.properties as Record<string, Schema>)[k] = { $ref: `#/definitions/${encodeURIComponent(copyName)}` };
      }
    }
    if (w.rule === 'optional' || w.rule === 'nullable') target.required = (target.required ?? []).filter((m) => m !== w.member);
    if (w.rule === 'nullable') {
      const props = target.properties as Record<string, Schema>;
      props[w.member] = nullable(props[w.member]);
      target.required = [...(target.required ?? []), w.member];
    }
  }
}

export interface ResponseChecker {
  /** Throws with every violation (instance path and message) when `data` is not a valid response of `method`. */
  check(method: SdkMethod, data: unknown): void;
}

export async function responseChecker(): Promise<ResponseChecker> {
  const schema = structuredClone(await generatedSchema());
  applySpecWins(schema);
  optionalMayBeNull(schema.definitions);
  const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
  ajv.addSchema({ $id: 'sdk', definitions: schema.definitions }, 'sdk');
  const compiled = new Map<SdkMethod, ValidateFunction>();
  return {
    check(method, data) {
      let v = compiled.get(method);
      if (!v) {
        v = ajv.compile({ $ref: `sdk#/definitions/${encodeURIComponent(RESPONSE_TYPES[method])}` });
        compiled.set(method, v);
      }
      if (!v(data)) {
        const lines = (v.errors ?? []).slice(0, 12).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
        throw new Error(`${method}: response does not match the SDK's ${RESPONSE_TYPES[method]}:\n  ${lines.join('\n  ')}`);
      }
    },
  };
}

/** The errors each method's doc comment says it throws (`@throws {@link Extend.NotFoundError}`), read from the SDK's .d.ts. */
export function typedErrors(): Map<SdkMethod, Set<string>> {
  // Every resource client of the SDK, so that a method missing from RESPONSE_TYPES shows up.
  const files: Array<[string, string]> = [['', path.join(SDK_DIR, 'Client.d.ts')]];
  for (const resource of readdirSync(path.join(SDK_DIR, 'api/resources'), { withFileTypes: true })) {
    if (resource.isDirectory()) files.push([resource.name, path.join(SDK_DIR, 'api/resources', resource.name, 'client/Client.d.ts')]);
  }
  const out = new Map<SdkMethod, Set<string>>();
  for (const [resource, file] of files) {
    let pending = new Set<string>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const t = /@throws \{@link Extend\.(\w+)\}/.exec(line);
      if (t) pending.add(t[1]);
      const m = /^\s{4}(\w+)\(.*HttpResponsePromise/.exec(line);
      if (m) {
        const name = (resource ? `${resource}.${m[1]}` : m[1]) as SdkMethod;
        out.set(name, pending);
        pending = new Set();
      }
    }
  }
  return out;
}

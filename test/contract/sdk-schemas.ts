/**
 * JSON Schemas of the official SDK's (0.0.12) response types, generated from its own `.d.ts` with
 * ts-json-schema-generator, and a run-time check of a response against them (the generation,
 * cache and checker are shared with the 1.x suite: test/helpers/sdk-schema.ts).
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
import { applySpecWins, checkerOf, declaredMethods, generatedSchema as generate, optionalMayBeNull, sdkDir, type ResponseChecker as Checker, type Schema, type SpecWin } from '../helpers/sdk-schema.js';

const SDK_DIR = sdkDir('extend-ai');

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
export const SPEC_WINS: ReadonlyArray<SpecWin<SdkMethod>> = [
  { method: 'processor.create', definition: 'Processor', member: 'draftVersion', rule: 'optional', spec: '4.8: create answers {success, processor} without draftVersion' },
  { definition: 'ProcessorRun', member: 'output', rule: 'nullable', spec: '2.2 and part 3: output is null until the run is processed' },
];

/** The generated schema (definitions of every type reachable from the responses), from the cache when it is there. */
export function generatedSchema(): Promise<Schema> {
  return generate(SDK_DIR, RESPONSE_TYPES);
}

export type ResponseChecker = Checker<SdkMethod>;

export async function responseChecker(): Promise<ResponseChecker> {
  const schema = structuredClone(await generatedSchema());
  applySpecWins(schema, RESPONSE_TYPES, SPEC_WINS);
  optionalMayBeNull(schema.definitions);
  return checkerOf(schema, RESPONSE_TYPES);
}

/** The errors each method's doc comment says it throws (`@throws {@link Extend.NotFoundError}`), read from the SDK's .d.ts. */
export function typedErrors(): Map<SdkMethod, Set<string>> {
  // Every resource client of the SDK, so that a method missing from RESPONSE_TYPES shows up.
  return new Map([...declaredMethods(SDK_DIR)].map(([m, d]) => [m as SdkMethod, d.throws]));
}

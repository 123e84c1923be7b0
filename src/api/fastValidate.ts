/**
 * Response validation that stays cheap in a hot loop. zod builds a copy of every object it
 * parses (a run is some forty objects and records), which cost the client about a twentieth of
 * a GET's CPU time against the sandbox in bench/client.bench.mjs, most of it in the garbage
 * collector. ajv checks a body in place without allocating.
 *
 * The zod schemas in model.ts stay the one source of truth: once a schema has been parsed
 * HOT_AFTER times, its JSON Schema is emitted from it with z.toJSONSchema and compiled by ajv
 * (ajv is imported then, not at startup; a command that sends a few requests never loads it).
 * A body the compiled validator accepts is returned as JSON.parse built it, which is what zod
 * would return for these schemas (every object passes unknown members through, nothing has a
 * default or a transform). A body it rejects goes to zod, whose answer stands: error messages
 * stay zod's, and a disagreement between the two can only cost time, never let a body through
 * that zod rejects, as long as ajv is not the looser of the two (test/api/fastValidate.test.ts
 * checks that on mutated bodies for every envelope).
 */
import { z } from 'zod';

/** Parses of one schema before its validator is compiled. */
export const HOT_AFTER = 64;

type Check = (data: unknown) => boolean;

interface Entry {
  uses: number;
  /** Set once compiled; null when the schema cannot be expressed as JSON Schema (zod only). */
  check: Check | null | undefined;
  compiling: Promise<void> | undefined;
}

const entries = new WeakMap<z.ZodType, Entry>();

export type Validated<T> = { success: true; data: T } | { success: false; error: z.ZodError };

/** zod's safeParse, answered by a compiled validator once the schema is hot. */
export function validate<S extends z.ZodType>(schema: S, data: unknown): Validated<z.infer<S>> {
  let e = entries.get(schema);
  if (e === undefined) {
    e = { uses: 0, check: undefined, compiling: undefined };
    entries.set(schema, e);
  }
  const check = e.check;
  if (check) {
    if (check(data)) return { success: true, data: data as z.infer<S> };
  } else if (check === undefined && ++e.uses === HOT_AFTER) {
    void compile(schema, e);
  }
  return schema.safeParse(data) as Validated<z.infer<S>>;
}

/** Compiles the schema's validator now (tests, and callers who know a loop is coming). */
export function precompile(schema: z.ZodType): Promise<void> {
  let e = entries.get(schema);
  if (e === undefined) {
    e = { uses: 0, check: undefined, compiling: undefined };
    entries.set(schema, e);
  }
  return compile(schema, e);
}

/** Whether validate() answers `schema` without zod for valid bodies (for tests). */
export function isCompiled(schema: z.ZodType): boolean {
  return typeof entries.get(schema)?.check === 'function';
}

let ajvPromise: Promise<{ compile(schema: object): Check }> | undefined;

function loadAjv() {
  ajvPromise ??= import('ajv/dist/2020.js').then((m) => {
    // allErrors off: the first mismatch is enough, zod then names them all.
    const ajv = new m.Ajv2020({ strict: false, allErrors: false, validateFormats: false });
    return { compile: (schema: object) => ajv.compile(schema) as Check };
  });
  return ajvPromise;
}

function compile(schema: z.ZodType, e: Entry): Promise<void> {
  e.compiling ??= (async () => {
    let jsonSchema: object;
    try {
      jsonSchema = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'throw', cycles: 'ref', reused: 'inline' });
    } catch {
      e.check = null;
      return;
    }
    try {
      const ajv = await loadAjv();
      e.check = ajv.compile(jsonSchema);
    } catch {
      // Validation stays with zod; nothing a user needs to act on.
      e.check = null;
    }
  })();
  return e.compiling;
}

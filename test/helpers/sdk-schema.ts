/**
 * What the contract suites of the official SDK (test/contract for 0.0.12, test/contract-1x for
 * 1.17) share: JSON Schema generated from an SDK's own `.d.ts` for its response types (cached),
 * the Fern rule that an optional member may be `null`, a run-time checker, and the method list
 * read from the clients' `.d.ts` (response type and the errors each doc comment names).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[]; definitions?: Record<string, Schema> };

/** The installed folder of an SDK package (its name in package.json, an npm alias included). */
export function sdkDir(pkg: string): string {
  return path.join(ROOT, 'node_modules', pkg);
}

export function sdkVersion(dir: string): string {
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

function entryText(dir: string, responseTypes: Readonly<Record<string, string>>): string {
  const lines = Object.entries(responseTypes).map(([m, t]) => `  ${JSON.stringify(m)}: Extend.${t};`);
  return `import type * as Extend from ${JSON.stringify(path.join(dir, 'api/index'))};\nexport interface SdkResponses {\n${lines.join('\n')}\n}\n`;
}

/**
 * The schema of `interface SdkResponses { [method]: Extend.<type> }` (definitions of every type
 * reachable from the responses), from the cache under node_modules/.cache/evalkit-contract when
 * it is there (keyed by the SDK's version and the list of types; written atomically).
 */
export async function generatedSchema(dir: string, responseTypes: Readonly<Record<string, string>>): Promise<Schema> {
  const text = entryText(dir, responseTypes);
  const version = sdkVersion(dir);
  const key = createHash('sha256').update(text).update(version).digest('hex').slice(0, 16);
  const cacheDir = path.join(ROOT, 'node_modules/.cache/evalkit-contract', `extend-ai-${version}-${key}`);
  const cached = path.join(cacheDir, 'schema.json');
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as Schema;
  mkdirSync(cacheDir, { recursive: true });
  const entry = path.join(cacheDir, 'entry.ts');
  writeFileSync(entry, text);
  const { createGenerator } = await import('ts-json-schema-generator');
  const schema = createGenerator({ path: entry, type: 'SdkResponses', skipTypeCheck: true, expose: 'all', topRef: true, jsDoc: 'none', additionalProperties: true }).createSchema('SdkResponses') as Schema;
  const tmp = `${cached}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(schema));
  renameSync(tmp, cached);
  return schema;
}

export function refName(s: Schema | undefined): string | undefined {
  const ref = s?.$ref;
  return typeof ref === 'string' ? decodeURIComponent(ref.replace('#/definitions/', '')) : undefined;
}

export function nullable(s: Schema): Schema {
  return { anyOf: [s, { type: 'null' }] };
}

/** Optional members may be null (Fern's optional members are often null on the wire), recursively over every object schema. */
export function optionalMayBeNull(s: unknown): void {
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

/** A member where the spec and the SDK's types differ and the sandbox follows the spec (each one written down in docs/sandbox-api.md). */
export interface SpecWin<M extends string> {
  /** Only in this method's response (a copy of the definition); every use of the definition without it. */
  method?: M;
  definition: string;
  member: string;
  rule: 'optional' | 'nullable';
  spec: string;
}

export function applySpecWins<M extends string>(schema: Schema, responseTypes: Readonly<Record<M, string>>, wins: ReadonlyArray<SpecWin<M>>): void {
  const defs = schema.definitions as Record<string, Schema>;
  for (const w of wins) {
    let target = defs[w.definition];
    if (w.method) {
      // Only for this method's response: a copy of the definition, referenced from it.
      const response = defs[responseTypes[w.method]];
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

export interface ResponseChecker<M extends string> {
  /** Throws with every violation (instance path and message) when `data` is not a valid response of `method`. */
  check(method: M, data: unknown): void;
}

/** A checker over `schema` (already adjusted by the caller), compiling each method's type on first use. */
export function checkerOf<M extends string>(schema: Schema, responseTypes: Readonly<Record<M, string>>): ResponseChecker<M> {
  const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
  ajv.addSchema({ $id: 'sdk', definitions: schema.definitions }, 'sdk');
  const compiled = new Map<M, ValidateFunction>();
  return {
    check(method, data) {
      let v = compiled.get(method);
      if (!v) {
        v = ajv.compile({ $ref: `sdk#/definitions/${encodeURIComponent(responseTypes[method])}` });
        compiled.set(method, v);
      }
      if (!v(data)) {
        const lines = (v.errors ?? []).slice(0, 12).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
        throw new Error(`${method}: response does not match the SDK's ${responseTypes[method]}:\n  ${lines.join('\n  ')}`);
      }
    },
  };
}

export interface DeclaredMethod {
  /** `T` of the method's `HttpResponsePromise<Extend.T>` / `Promise<Extend.T>` (its untyped overload), when it has one. */
  responseType?: string;
  /** The errors its doc comment says it throws (`@throws {@link Extend.NotFoundError}`). */
  throws: Set<string>;
}

/**
 * The methods the clients' `.d.ts` declare: the root `Client.d.ts` (`name`), every resource client
 * `api/resources/<r>/client/Client.d.ts` (`r.name`) and, with `wrappers`, the hand-written wrappers
 * `wrapper/resources/<r>/*.d.ts` (1.x: `createAndPoll` and typed overloads). Only lines that
 * return a promise count, so private members and generic overloads (`name<T ...>(`) are skipped.
 */
export function declaredMethods(dir: string, opts: { wrappers?: boolean } = {}): Map<string, DeclaredMethod> {
  const files: Array<[string, string]> = [['', path.join(dir, 'Client.d.ts')]];
  for (const resource of readdirSync(path.join(dir, 'api/resources'), { withFileTypes: true })) {
    if (resource.isDirectory()) files.push([resource.name, path.join(dir, 'api/resources', resource.name, 'client/Client.d.ts')]);
  }
  const wrapperDir = path.join(dir, 'wrapper/resources');
  if (opts.wrappers && existsSync(wrapperDir)) {
    for (const resource of readdirSync(wrapperDir, { withFileTypes: true })) {
      if (!resource.isDirectory()) continue;
      for (const f of readdirSync(path.join(wrapperDir, resource.name))) {
        if (f.endsWith('.d.ts') && f !== 'index.d.ts') files.push([resource.name, path.join(wrapperDir, resource.name, f)]);
      }
    }
  }
  const out = new Map<string, DeclaredMethod>();
  for (const [resource, file] of files) {
    let pending = new Set<string>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const t = /@throws \{@link Extend\.(\w+)\}/.exec(line);
      if (t) pending.add(t[1]);
      const m = /^\s{4}(\w+)\(.*HttpResponsePromise/.exec(line) ?? /^\s{4}(\w+)\(.*\): Promise<Extend\.\w+>;\s*$/.exec(line);
      if (m) {
        const name = resource ? `${resource}.${m[1]}` : m[1];
        const responseType = /(?:HttpResponsePromise|Promise)<Extend\.(\w+)>;\s*$/.exec(line)?.[1];
        const known = out.get(name);
        if (known) {
          known.responseType ??= responseType;
          for (const e of pending) known.throws.add(e);
        } else {
          out.set(name, { responseType, throws: pending });
        }
        pending = new Set();
      }
    }
  }
  return out;
}

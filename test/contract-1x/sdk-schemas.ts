/**
 * The SDK 1.17 (npm alias extend-ai-1, API 2026-02-09): its methods and their response types as
 * its own `.d.ts` declare them, and a run-time check of an answer against JSON Schema generated
 * from those types (shared with the 0.0.12 suite: test/helpers/sdk-schema.ts). The rules of the
 * 0.0.12 suite apply, no others: an optional member may be `null` (Fern), and SPEC_WINS.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { applySpecWins, checkerOf, declaredMethods, generatedSchema, optionalMayBeNull, sdkDir, type ResponseChecker, type SpecWin } from '../helpers/sdk-schema.js';

export const SDK_DIR = sdkDir('extend-ai-1');

/** Every method the 1.17 clients declare (generated clients, the root client and the wrappers' `createAndPoll`). */
export const DECLARED = declaredMethods(SDK_DIR, { wrappers: true });

/** Methods the suite does not call, by resource (or root method), and why. */
export const EXCLUDED: ReadonlyArray<[RegExp, string]> = [
  [/^(parse|edit|detectForm)$/, 'parse, edit and form detection: not emulated by the sandbox (issue 33: 501 by design)'],
  [/^(parseRuns|editRuns|editTemplates|editSchemas|formDetectionRuns)\./, 'parse, edit and form detection: not emulated by the sandbox (issue 33: 501 by design)'],
  [/^webhooks\./, 'local helpers (signature check and parsing of a delivery); they send no request to the API'],
];

export function excludedBecause(method: string): string | undefined {
  return EXCLUDED.find(([re]) => re.test(method))?.[1];
}

/** The methods the suite calls: every declared one but the excluded, each with its response type. */
export const RESPONSE_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  [...DECLARED]
    .filter(([m]) => !excludedBecause(m))
    .map(([m, d]) => {
      if (!d.responseType) throw new Error(`${m}: no response type found in the SDK's .d.ts`);
      return [m, d.responseType];
    })
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);

/**
 * The legacy endpoints are "same (legacy)" in 2026-02-09 (spec 2026-02-09, section 2: their 1.17
 * types match 0.0.12's member for member), so the two spec decisions the 0.0.12 suite applies to
 * them apply here too, under the 1.17 names of the same types. Nothing else is relaxed.
 */
export const SPEC_WINS: ReadonlyArray<SpecWin<string>> = [
  { method: 'processor.create', definition: 'LegacyProcessor', member: 'draftVersion', rule: 'optional', spec: 'service-api.md 4.8: create answers {success, processor} without draftVersion' },
  { definition: 'LegacyProcessorRun', member: 'output', rule: 'nullable', spec: 'service-api.md 2.2 and part 3: output is null until the run is processed' },
];

export async function responseChecker(): Promise<ResponseChecker<string>> {
  const schema = structuredClone(await generatedSchema(SDK_DIR, RESPONSE_TYPES));
  applySpecWins(schema, RESPONSE_TYPES, SPEC_WINS);
  optionalMayBeNull(schema.definitions);
  return checkerOf(schema, RESPONSE_TYPES);
}

/** Names the SDK's `.d.ts` declare `private` or `protected`: the compiled classes carry them too, as ordinary members. */
function hiddenNames(): Set<string> {
  const files = [path.join(SDK_DIR, 'Client.d.ts'), path.join(SDK_DIR, 'wrapper/ExtendClient.d.ts'), path.join(SDK_DIR, 'wrapper/webhooks/Webhooks.d.ts')];
  for (const base of ['api/resources', 'wrapper/resources']) {
    for (const r of readdirSync(path.join(SDK_DIR, base), { withFileTypes: true })) {
      if (!r.isDirectory()) continue;
      const dir = base === 'api/resources' ? path.join(SDK_DIR, base, r.name, 'client') : path.join(SDK_DIR, base, r.name);
      for (const f of readdirSync(dir)) if (f.endsWith('.d.ts')) files.push(path.join(dir, f));
    }
  }
  const out = new Set<string>();
  for (const f of files) for (const m of readFileSync(f, 'utf8').matchAll(/^\s+(?:private|protected)\s+(?:readonly\s+)?(\w+)/gm)) out.add(m[1]);
  return out;
}

/** Own and inherited members of an object, nearest first (up to, not including, Object.prototype). */
function membersOf(o: object): Map<string, PropertyDescriptor> {
  const out = new Map<string, PropertyDescriptor>();
  for (let p: object | null = Object.getPrototypeOf(o); p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
    for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) if (!out.has(name)) out.set(name, d);
  }
  return out;
}

/**
 * Every public method of a client instance, found by reflection: the client's own methods
 * (`extract`) and the methods of every object it exposes through a getter or a field
 * (`extractRuns.create`, `webhooks.verify`). Public = not `constructor`, not `_`-prefixed and not
 * declared private or protected in the `.d.ts`.
 */
export function reflectedMethods(client: object): string[] {
  const hidden = hiddenNames();
  const isPublic = (n: string) => n !== 'constructor' && !n.startsWith('_') && !hidden.has(n);
  const out = new Set<string>();
  const addResource = (name: string, value: unknown) => {
    if (value === null || typeof value !== 'object') return;
    for (const [n, d] of membersOf(value)) if (isPublic(n) && typeof d.value === 'function') out.add(`${name}.${n}`);
  };
  const rec = client as Record<string, unknown>;
  for (const [name, d] of membersOf(client)) {
    if (!isPublic(name)) continue;
    if (typeof d.value === 'function') out.add(name);
    else if (d.get) addResource(name, rec[name]);
  }
  for (const name of Object.keys(client)) if (isPublic(name)) addResource(name, rec[name]);
  return [...out].sort();
}

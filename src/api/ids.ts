/**
 * What an id's prefix tells (spec 1.4). 2026-02-09 ids name their kind: ex_ (extractor), cl_ or
 * cls_ (classifier), spl_ (splitter), with v (version) and r (run) variants: exv_, clv_, splv_,
 * exr_, clr_, splr_. A 2025-04-21 dp_/dpv_/dpr_ id tells no type. Ids are otherwise opaque: an
 * unknown prefix is not refused, the service decides.
 */
import type { ProcessorType } from './model.js';

const PREFIXES: ReadonlyArray<[RegExp, ProcessorType]> = [
  [/^exv?r?_/, 'EXTRACT'],
  [/^(cls?|clv|clr)_/, 'CLASSIFY'],
  [/^splv?r?_/, 'SPLITTER'],
];

/** The processor type an id's prefix names; undefined for dp_ ids and unknown prefixes. */
export function typeOfId(id: string): ProcessorType | undefined {
  for (const [re, type] of PREFIXES) if (re.test(id)) return type;
  return undefined;
}

/** A type with its article, as a sentence names it: "an EXTRACT", "a CLASSIFY", "a SPLITTER". */
export function aType(type: ProcessorType): string {
  return `${type === 'EXTRACT' ? 'an' : 'a'} ${type}`;
}

/** Whether an id looks like a version id (dpv_, exv_, clv_, splv_): `diff` and `validate --version` take one. */
export function isVersionId(id: string): boolean {
  return /^(dpv|exv|clv|splv)_/.test(id);
}

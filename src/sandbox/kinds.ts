/**
 * The three kinds of 2026-02-09 entity, one row per processor type: the names the entity goes
 * by (routes/entities.ts, processors.ts) and the names of its runs (runAnswers.ts,
 * routes/currentRuns.ts, evaluation set runs). The id prefixes are ids.ts's, named by `id`.
 */
import type { ProcessorType } from './core.js';
import { ID_PREFIX, type IdKind } from './ids.js';

/** The names a processor type's runs go by in 2026-02-09. */
export interface RunNames {
  /** `extract_run`: the run's `object`. */
  object: 'extract_run' | 'classify_run' | 'split_run';
  /** `extract_runs`: the async run route, without its `/`. */
  route: 'extract_runs' | 'classify_runs' | 'split_runs';
  /** `extract`: the sync route, without its `/`. */
  sync: 'extract' | 'classify' | 'split';
  id: IdKind;
  /** `extract run`, for messages. */
  noun: 'extract run' | 'classify run' | 'split run';
}

/** The 2026-02-09 names of one processor type: the entity and its runs. */
export interface Kind {
  type: ProcessorType;
  /** `extractor`: the object name, the singular in messages, and the run body member. */
  noun: 'extractor' | 'classifier' | 'splitter';
  route: '/extractors' | '/classifiers' | '/splitters';
  /** `extractorId` in version objects (and the run list query). */
  parentKey: 'extractorId' | 'classifierId' | 'splitterId';
  /** `cloneExtractorId` in create bodies. */
  cloneKey: 'cloneExtractorId' | 'cloneClassifierId' | 'cloneSplitterId';
  /** The entity's ids (`ex_`): what marks an object as minted by the 2026-02-09 routes. */
  id: IdKind;
  versionId: IdKind;
  run: RunNames;
}

export const KINDS: Record<ProcessorType, Kind> = {
  EXTRACT: {
    type: 'EXTRACT', noun: 'extractor', route: '/extractors', parentKey: 'extractorId', cloneKey: 'cloneExtractorId', id: 'extractor', versionId: 'extractorVersion',
    run: { object: 'extract_run', route: 'extract_runs', sync: 'extract', id: 'extractRun', noun: 'extract run' },
  },
  CLASSIFY: {
    type: 'CLASSIFY', noun: 'classifier', route: '/classifiers', parentKey: 'classifierId', cloneKey: 'cloneClassifierId', id: 'classifier', versionId: 'classifierVersion',
    run: { object: 'classify_run', route: 'classify_runs', sync: 'classify', id: 'classifyRun', noun: 'classify run' },
  },
  SPLITTER: {
    type: 'SPLITTER', noun: 'splitter', route: '/splitters', parentKey: 'splitterId', cloneKey: 'cloneSplitterId', id: 'splitter', versionId: 'splitterVersion',
    run: { object: 'split_run', route: 'split_runs', sync: 'split', id: 'splitRun', noun: 'split run' },
  },
};

/** A noun of a message with its article: `an extractor`, `a classifier`, `an extract run`. */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

/** The kind of a stored type; undefined for a type that is none of the three. */
export function kindOfType(type: string): Kind | undefined {
  return Object.hasOwn(KINDS, type) ? KINDS[type as ProcessorType] : undefined;
}

/** The type an id's prefix names (`ex_`/`cl_`/`spl_`: 2026-02-09 ids only); undefined for `dp_` and others. */
export function typeOfPrefix(id: string): ProcessorType | undefined {
  return Object.values(KINDS).find((k) => id.startsWith(ID_PREFIX[k.id]))?.type;
}

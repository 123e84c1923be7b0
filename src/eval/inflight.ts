/**
 * The evaluation set run an `eval run` on 2026-02-09 has in flight, so that running the same
 * command again after a kill or Ctrl-C polls that run (or exports it, once ended) instead of
 * starting a second one: the service lists no evaluation set runs (spec 4.1), so evalkit keeps
 * the id itself. One small file per (service, set, entity, version, items) in the user's state
 * folder (`$XDG_STATE_HOME/evalkit/eval-runs`), written atomically as soon as the create answers
 * and removed once the run's export is built.
 */
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/fs.js';
import { stableStringify } from '../util/json.js';
import { stateDir } from '../util/state.js';

export interface InFlight {
  evaluationSetRunId: string;
  evaluationSetId: string;
  entityId: string;
  version: string;
  startedAt: string;
  /**
   * configHash() of the version's config when the run was started: a draft changed since is
   * another evaluation (the run evaluated the old one). Absent in records written before it was recorded.
   */
  configHash?: string;
}

/** A short digest of a config (keys sorted), to tell whether a draft changed since a run started. */
export function configHash(config: unknown): string {
  return createHash('sha256').update(stableStringify(config ?? null)).digest('hex').slice(0, 32);
}

/** The state file of the run of these items of a set on an entity version at a service (its base URL, without credentials). */
export function inFlightPath(p: { baseUrl: string; evaluationSetId: string; entityId: string; version: string; itemIds: readonly string[] }, env: NodeJS.ProcessEnv = process.env): string {
  const items = [...p.itemIds].sort().join(',');
  const key = createHash('sha256').update([p.baseUrl, p.evaluationSetId, p.entityId, p.version, items].join('\n')).digest('hex').slice(0, 32);
  return path.join(stateDir(env), 'eval-runs', `run-${key}.json`);
}

/** The run recorded there; undefined when none is (or the file is not one evalkit wrote). */
export async function readInFlight(file: string): Promise<InFlight | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const v = JSON.parse(text) as Partial<InFlight>;
    return typeof v.evaluationSetRunId === 'string' && v.evaluationSetRunId !== '' ? (v as InFlight) : undefined;
  } catch {
    return undefined;
  }
}

export async function recordInFlight(file: string, run: InFlight): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(run)}\n`);
}

export async function forgetInFlight(file: string): Promise<void> {
  await fsp.rm(file, { force: true });
}

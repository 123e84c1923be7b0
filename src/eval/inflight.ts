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
import { serviceKey } from '../dataset/journal.js';
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
  /** The service (its base URL without credentials); absent in records written before it was recorded. */
  service?: string;
}

/** A base URL without user name or password, as records keep it. */
export function serviceOf(baseUrl: string): string {
  return serviceKey(baseUrl);
}

/** A short digest of a config (keys sorted), to tell whether a draft changed since a run started. */
export function configHash(config: unknown): string {
  return createHash('sha256').update(stableStringify(config ?? null)).digest('hex').slice(0, 32);
}

/** The folder of the records. */
export function inFlightDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(stateDir(env), 'eval-runs');
}

/** The state file of the run of these items of a set on an entity version at a service (its base URL, without credentials). */
export function inFlightPath(p: { baseUrl: string; evaluationSetId: string; entityId: string; version: string; itemIds: readonly string[]; variant?: string }, env: NodeJS.ProcessEnv = process.env): string {
  const items = [...p.itemIds].sort().join(',');
  const parts = [p.baseUrl, p.evaluationSetId, p.entityId, p.version, items];
  // Per-item runs (and their --config) are another evaluation than the evaluation set run.
  if (p.variant !== undefined) parts.push(p.variant);
  const key = createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);
  return path.join(inFlightDir(env), `run-${key}.json`);
}

/** The run recorded there; undefined when none is (or the file is not one evalkit wrote). */
export async function readInFlight(file: string): Promise<InFlight | undefined> {
  const v = (await readRecord(file)) as Partial<InFlight> | undefined;
  return typeof v?.evaluationSetRunId === 'string' && v.evaluationSetRunId !== '' ? (v as InFlight) : undefined;
}

/** A record file's JSON object; undefined when there is none, or it is not JSON (not one evalkit wrote). */
async function readRecord(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
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

/**
 * Removes the records of this evaluation set run at this service (`eval export` of a recorded run,
 * once its export is built, so that the next `eval run` is a new evaluation). Answers how many
 * were removed.
 */
export async function forgetRun(p: { baseUrl: string; evaluationSetRunId: string; evaluationSetId: string }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const dir = inFlightDir(env);
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
  const service = serviceOf(p.baseUrl);
  let removed = 0;
  for (const name of names) {
    if (!/^run-[0-9a-f]+\.json$/.test(name)) continue;
    const file = path.join(dir, name);
    const rec = await readInFlight(file);
    if (!rec || rec.evaluationSetRunId !== p.evaluationSetRunId || rec.evaluationSetId !== p.evaluationSetId) continue;
    if (rec.service !== undefined && rec.service !== service) continue;
    await forgetInFlight(file);
    removed++;
  }
  return removed;
}

/**
 * The per-item runs (API 2026-02-09) a stopped `eval run` left: they carry `evalkitRunKey` in
 * their metadata, so running the same command again finds them (the processor's runs, newest
 * first, back to `since`) instead of creating them again.
 */
export interface PerItemRecord {
  kind: 'per-item';
  evalkitRunKey: string;
  /** Epoch ms: how far back (by the service's createdAt) the runs are looked for. */
  since: number;
  evaluationSetId: string;
  entityId: string;
  version: string;
  startedAt: string;
  /** configHash() of what the runs run: the version's config, or the --config override. */
  configHash: string;
  service: string;
}

export async function readPerItemRecord(file: string): Promise<PerItemRecord | undefined> {
  const v = (await readRecord(file)) as Partial<PerItemRecord> | undefined;
  return v?.kind === 'per-item' && typeof v.evalkitRunKey === 'string' && typeof v.since === 'number' && typeof v.configHash === 'string' ? (v as PerItemRecord) : undefined;
}

export async function recordPerItem(file: string, rec: PerItemRecord): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(rec)}\n`);
}

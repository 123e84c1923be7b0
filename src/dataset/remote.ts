/**
 * What the service already holds: the set's items with their identities, the files evalkit
 * uploaded before (found by the content tag in their names), and the evaluation set itself.
 */
import pLimit from 'p-limit';
import { isApiError, paginate, type Client, type EvalSet, type SetItem } from '../api/index.js';
import { fileIdIdentity, identityOfUploadName } from './files.js';
import { digestOf, type ExistingItem } from './plan.js';

export const LIST_PAGE_SIZE = 1000;

/** Rounds of the client's retries one operation gets while the service keeps answering 429. */
const RATE_LIMIT_ROUNDS = 20;

/**
 * Runs a request again while the service refuses it with 429. A rate limit says "later", never
 * "no": it must not fail a row of a long upload, even with more requests in flight than the
 * limit allows per second. The client's shared gate does the waiting (a 429 closes it for its
 * Retry-After, also when the client gives up), so this only decides to go on.
 */
export async function patiently<T>(op: () => Promise<T>): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await op();
    } catch (e) {
      if (round >= RATE_LIMIT_ROUNDS || !(isApiError(e) && e.status === 429)) throw e;
    }
  }
}

/** Identity <-> fileId knowledge shared by the whole upload. */
export class FileIndex {
  /** Identity (sha256:...) -> an uploaded file with that content. */
  readonly byIdentity = new Map<string, string>();
  /** fileId -> identity, for files whose content we know. */
  readonly byFileId = new Map<string, string>();

  learn(identity: string, fileId: string): void {
    if (!this.byIdentity.has(identity)) this.byIdentity.set(identity, fileId);
    this.byFileId.set(fileId, identity);
  }
}

/**
 * Every item of the set with its expected output, in list order. On 2026-02-09 a list row has
 * none: each item is read (`concurrency` at a time), the cost of that version for a sync or a
 * download (docs/dataset.md).
 */
export async function readItems(client: Client, setId: string, opts: { concurrency: number; signal?: AbortSignal; onListed?: (n: number) => void }): Promise<SetItem[]> {
  const ops = client.items(setId);
  const { signal } = opts;
  const listed: SetItem[] = [];
  const rows = paginate((nextPageToken) => patiently(() => ops.list({ maxPageSize: LIST_PAGE_SIZE, nextPageToken }, { signal })), { signal });
  for await (const it of rows) {
    listed.push(it);
    opts.onListed?.(listed.length);
  }
  if (ops.listHasOutputs) return listed;
  const limit = pLimit(Math.max(1, opts.concurrency));
  return Promise.all(listed.map((it) => limit(async () => ({ ...it, ...(await patiently(() => ops.retrieve(it.id, { signal }))), fileName: it.fileName }))));
}

/**
 * Every item of the set with its identity: `file:<id>` when a row names that fileId, else the
 * content identity of a file evalkit uploaded (from the journal, or read from the file's name),
 * else `file:<id>` (an item the CSV cannot match).
 */
export async function listExisting(client: Client, setId: string, index: FileIndex, rowFileIds: ReadonlySet<string>, opts: { concurrency: number; signal?: AbortSignal; onListed?: (n: number) => void }): Promise<ExistingItem[]> {
  const raw = await readItems(client, setId, opts);
  // 2026-02-09 items carry their file's name: the identity comes from it without a request.
  for (const r of raw) {
    if (r.fileName === undefined || rowFileIds.has(r.fileId) || index.byFileId.has(r.fileId)) continue;
    const identity = identityOfUploadName(r.fileName);
    if (identity) index.learn(identity, r.fileId);
  }
  const unknown = [...new Set(raw.filter((r) => r.fileName === undefined).map((r) => r.fileId))].filter((f) => !rowFileIds.has(f) && !index.byFileId.has(f));
  if (unknown.length > 0) {
    const limit = pLimit(opts.concurrency);
    const files = client.files;
    await Promise.all(unknown.map((fileId) => limit(async () => {
      try {
        const f = await patiently(() => files.retrieve(fileId, { signal: opts.signal }));
        const identity = identityOfUploadName(f.name);
        if (identity) index.learn(identity, fileId);
      } catch (e) {
        if (!(isApiError(e) && e.status === 404)) throw e;
      }
    })));
  }
  // The output stays for the three-way merge (a digest cannot say which labels differ).
  return raw.map((r) => ({
    id: r.id,
    identity: rowFileIds.has(r.fileId) ? fileIdIdentity(r.fileId) : (index.byFileId.get(r.fileId) ?? fileIdIdentity(r.fileId)),
    digest: digestOf(r.expectedOutput),
    ...(r.expectedOutput !== undefined ? { output: r.expectedOutput } : {}),
  }));
}

/** An evalkit-named upload of this content, if the service has one. */
export async function findUploaded(client: Client, tag: string, signal?: AbortSignal): Promise<string | undefined> {
  const page = await patiently(() => client.files.list({ nameContains: tag, maxPageSize: 10 }, { signal }));
  return page.items.find((f) => f.name.includes(tag))?.id;
}

/** The set of this name of the processor (2025-04-21) or extractor, classifier or splitter (2026-02-09). */
export async function findSetByName(client: Client, entityId: string, name: string, signal?: AbortSignal): Promise<EvalSet | undefined> {
  const sets = client.sets;
  for await (const s of paginate((nextPageToken) => patiently(() => sets.list({ entityId, nextPageToken }, { signal })), { signal })) {
    if (s.name === name) return s;
  }
  return undefined;
}

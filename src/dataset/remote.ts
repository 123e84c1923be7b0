/**
 * What the service already holds: the set's items with their identities, the files evalkit
 * uploaded before (found by the content tag in their names), and the evaluation set itself.
 */
import pLimit from 'p-limit';
import { isApiError, paginate, type Client, type EvaluationSet } from '../api/index.js';
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
 * Every item of the set with its identity: `file:<id>` when a row names that fileId, else the
 * content identity of a file evalkit uploaded (from the journal, or read from the file's name),
 * else `file:<id>` (an item the CSV cannot match).
 */
export async function listExisting(client: Client, setId: string, index: FileIndex, rowFileIds: ReadonlySet<string>, opts: { concurrency: number; signal?: AbortSignal; onListed?: (n: number) => void }): Promise<ExistingItem[]> {
  const raw: Array<{ id: string; fileId: string; digest: string; output?: unknown }> = [];
  const items = paginate((nextPageToken) => patiently(() => client.evaluationSets.listItems(setId, { maxPageSize: LIST_PAGE_SIZE, nextPageToken }, { signal: opts.signal })), { signal: opts.signal });
  for await (const it of items) {
    // The output stays for the three-way merge (a digest cannot say which labels differ).
    raw.push({ id: it.id, fileId: it.fileId, digest: digestOf(it.expectedOutput), output: it.expectedOutput });
    opts.onListed?.(raw.length);
  }
  const unknown = [...new Set(raw.map((r) => r.fileId))].filter((f) => !rowFileIds.has(f) && !index.byFileId.has(f));
  if (unknown.length > 0) {
    const limit = pLimit(opts.concurrency);
    await Promise.all(unknown.map((fileId) => limit(async () => {
      try {
        const f = await patiently(() => client.files.get(fileId, {}, { signal: opts.signal }));
        const identity = identityOfUploadName(f.name);
        if (identity) index.learn(identity, fileId);
      } catch (e) {
        if (!(isApiError(e) && e.status === 404)) throw e;
      }
    })));
  }
  return raw.map((r) => ({
    id: r.id,
    identity: rowFileIds.has(r.fileId) ? fileIdIdentity(r.fileId) : (index.byFileId.get(r.fileId) ?? fileIdIdentity(r.fileId)),
    digest: r.digest,
    ...(r.output !== undefined ? { output: r.output } : {}),
  }));
}

/** An evalkit-named upload of this content, if the service has one. */
export async function findUploaded(client: Client, tag: string, signal?: AbortSignal): Promise<string | undefined> {
  const page = await patiently(() => client.files.list({ nameContains: tag, maxPageSize: 10 }, { signal }));
  return page.items.find((f) => f.name.includes(tag))?.id;
}

export async function findSetByName(client: Client, processorId: string, name: string, signal?: AbortSignal): Promise<EvaluationSet | undefined> {
  for await (const s of paginate((nextPageToken) => patiently(() => client.evaluationSets.list({ processorId, nextPageToken }, { signal })), { signal })) {
    if (s.name === name) return s;
  }
  return undefined;
}

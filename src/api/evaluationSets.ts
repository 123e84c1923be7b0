/**
 * Files, evaluation sets and their items whatever the API version in effect, in one neutral
 * shape, so the dataset commands never branch on the version:
 *
 *   client.files          2025-04-21 `{success, file}` answers; 2026-02-09 the bare `File`, lists of `FileSummary`
 *   client.sets           2025-04-21 sets on a `processorId`; 2026-02-09 sets on an `entityId` (`entity` in answers)
 *   client.items(setId)   2025-04-21 `/evaluation_set_items` (+ `/bulk`); 2026-02-09 `/evaluation_sets/{id}/items`
 *
 * The client's only API for these resources: both versions' routes are here, nowhere else.
 *
 * Expected outputs travel in the form of the version in effect (spec 3.7): src/dataset shapes
 * them, this module does not look inside. On 2026-02-09 an item list carries no expectedOutput
 * (`listHasOutputs` is false): read each item where the outputs are needed.
 */
import { z } from 'zod';
import { UsageError } from '../util/errors.js';
import { ApiError } from './errors.js';
import type { RequestOptions, Transport } from './http.js';
import { envelopes, fileSchema, type EvaluationSet, type EvaluationSetItem, type File, type Page } from './model.js';
import { createdBySchema, deletedSchema, fileSummarySchema, listOf } from './model-2026-02-09.js';
import { paginate, type PaginateOptions } from './paging.js';
import { page, seg } from './segments.js';
import { speaks2026 } from './version.js';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// 2026-02-09 shapes (spec 7 "Files", "Evaluation")

/**
 * `File_`: a FileSummary with its presigned URL and, when asked for, its contents. As in
 * model-2026-02-09.ts, members the spec types as required (nullable or not) are required.
 */
export const file2026Schema = fileSummarySchema.extend({
  presignedUrl: z.string().nullable(),
  contents: z.record(z.string(), z.unknown()).nullable(),
});

/** `EvaluationSet`: `entity` is the extractor, classifier or splitter summary (`object` names the kind). */
export const evaluationSet2026Schema = z.looseObject({
  object: z.literal('evaluation_set'),
  id: z.string(),
  name: z.string(),
  description: z.string(),
  entity: z.looseObject({ object: z.string(), id: z.string() }),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: createdBySchema.nullable(),
});

/** `EvaluationSetItemSummary`: a list row, without expectedOutput. */
export const evaluationSetItemSummary2026Schema = z.looseObject({
  object: z.literal('evaluation_set_item'),
  id: z.string(),
  file: fileSummarySchema,
  createdBy: createdBySchema.nullable(),
});

export const evaluationSetItem2026Schema = evaluationSetItemSummary2026Schema.extend({
  evaluationSetId: z.string(),
  expectedOutput: z.record(z.string(), z.unknown()),
});

const lists2026 = {
  files: listOf(fileSummarySchema),
  sets: listOf(evaluationSet2026Schema),
  items: listOf(evaluationSetItemSummary2026Schema),
  /** `POST /evaluation_sets/{id}/items` answers `{evaluationSetItems}` (no `success`, spec 1.2). */
  created: z.looseObject({ evaluationSetItems: z.array(evaluationSetItem2026Schema) }),
};

/** Items per create call: 2026-02-09 `POST /evaluation_sets/{id}/items` takes 1 to 100 (spec 2). */
export const MAX_ITEMS_PER_CREATE_2026 = 100;
/** 2025-04-21 `POST /evaluation_set_items/bulk` takes 1 to 1,000. */
export const MAX_ITEMS_PER_CREATE_2025 = 1000;

// ---------------------------------------------------------------------------------------------
// Neutral shapes

/** An uploaded file. */
export interface StoredFile {
  id: string;
  name: string;
  type: string | null;
  /** Where the content downloads from (its own authorisation); absent from list rows. */
  presignedUrl: string | null;
  raw: Json;
}

/** An evaluation set and the processor, extractor, classifier or splitter it belongs to. */
export interface EvalSet {
  id: string;
  name: string;
  description: string | null;
  /** 2025-04-21 `processorId`; 2026-02-09 `entity.id`. */
  entityId: string;
  raw: Json;
}

export interface SetItem {
  id: string;
  evaluationSetId: string;
  fileId: string;
  /** The file's name when the answer holds it (2026-02-09 items carry a FileSummary). */
  fileName?: string;
  /** In the form of the version in effect; absent from 2026-02-09 list rows. */
  expectedOutput?: Json;
  raw: Json;
}

export interface NewItem {
  fileId: string;
  expectedOutput: Json;
}

/** GET /files/:id on 2025-04-21: the spec leaves open whether the file comes wrapped in `{success, file}`. */
const fileGet2025Schema = z.union([envelopes.file, fileSchema]);

/** The contents GET /files/{id} adds (both versions take the same flags); they are in `raw`. */
export interface FileContentFlags {
  rawText?: boolean;
  markdown?: boolean;
  html?: boolean;
}

interface Deps {
  apiVersion: string;
  request: Transport['request'];
  /** Builds a multipart body of one file (client.ts), for the 2026-02-09 upload. */
  encodeFile: (input: { name: string; data: Blob | Uint8Array | string; contentType?: string }) => { encoded?: { data: Uint8Array; contentType: string }; form?: FormData };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A 2025-04-21 File, a 2026-02-09 File_ or a FileSummary (no presignedUrl). */
function fromFile(f: { id: string; name: string; type?: string | null; presignedUrl?: string | null }): StoredFile {
  return { id: f.id, name: f.name, type: f.type ?? null, presignedUrl: typeof f.presignedUrl === 'string' ? f.presignedUrl : null, raw: f as Json };
}

function fromSet(s: EvaluationSet): EvalSet {
  return { id: s.id, name: s.name, description: s.description ?? null, entityId: s.processorId, raw: s as Json };
}

function fromSet2026(s: z.infer<typeof evaluationSet2026Schema>): EvalSet {
  return { id: s.id, name: s.name, description: s.description ?? null, entityId: s.entity.id, raw: s as Json };
}

function fromItem(i: EvaluationSetItem): SetItem {
  return { id: i.id, evaluationSetId: i.evaluationSetId, fileId: i.fileId, expectedOutput: i.expectedOutput as Json, raw: i as Json };
}

function fromItem2026(i: Json, setId: string): SetItem {
  const file = i.file as Json;
  return {
    id: str(i.id), evaluationSetId: typeof i.evaluationSetId === 'string' ? i.evaluationSetId : setId, fileId: str(file.id), fileName: str(file.name),
    ...(i.expectedOutput !== undefined ? { expectedOutput: i.expectedOutput as Json } : {}), raw: i,
  };
}

export function makeSetFacade(d: Deps) {
  const v2026 = speaks2026(d.apiVersion);
  const { request } = d;

  const files = {
    /** POST /files/upload (multipart, field `file`). */
    async upload(input: { name: string; data: Blob | Uint8Array | string; contentType?: string }, o?: RequestOptions): Promise<StoredFile> {
      if (!v2026) return fromFile((await request({ method: 'POST', path: '/files/upload', ...d.encodeFile(input), schema: envelopes.file }, o)).file);
      return fromFile(await request({ method: 'POST', path: '/files/upload', ...d.encodeFile(input), schema: file2026Schema }, o));
    },
    /** GET /files/{id}: with its presignedUrl and, when `contents` asks for them, its text, markdown or html (in `raw`). */
    async retrieve(id: string, o?: RequestOptions, contents: FileContentFlags = {}): Promise<StoredFile> {
      const query = contents.rawText || contents.markdown || contents.html
        ? { rawText: contents.rawText || undefined, markdown: contents.markdown || undefined, html: contents.html || undefined }
        : undefined;
      const path = `/files/${seg(id, 'file id')}`;
      if (v2026) return fromFile(await request({ method: 'GET', path, query, schema: file2026Schema }, o));
      const r = await request({ method: 'GET', path, query, schema: fileGet2025Schema }, o);
      // A bare File has object 'file'; the envelope has success and file.
      return fromFile((r.object === 'file' ? r : (r as z.infer<typeof envelopes.file>).file) as File);
    },
    /** GET /files (one page; on 2026-02-09 summaries without presignedUrl). */
    async list(params: { nameContains?: string; nextPageToken?: string; maxPageSize?: number } = {}, o?: RequestOptions): Promise<Page<StoredFile>> {
      if (!v2026) {
        const r = await request({ method: 'GET', path: '/files', query: { ...params }, schema: envelopes.fileList }, o);
        return page(r.files.map(fromFile), r.nextPageToken);
      }
      const a = await request({ method: 'GET', path: '/files', query: { ...params }, schema: lists2026.files }, o);
      return page(a.data.map((f) => fromFile(f)), a.nextPageToken);
    },
    listAll(params: { nameContains?: string; maxPageSize?: number } = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<StoredFile, void, undefined> {
      return paginate((nextPageToken) => files.list({ ...params, nextPageToken }, o), o);
    },
    async delete(id: string, o?: RequestOptions): Promise<void> {
      const path = `/files/${seg(id, 'file id')}`;
      if (!v2026) await request({ method: 'DELETE', path, schema: envelopes.deleted }, o);
      else await request({ method: 'DELETE', path, goneBody: { id }, schema: deletedSchema }, o);
    },
  };

  const sets = {
    /** Items per create call the version in effect takes (items(setId).create). */
    maxItemsPerCreate: v2026 ? MAX_ITEMS_PER_CREATE_2026 : MAX_ITEMS_PER_CREATE_2025,
    /** POST /evaluation_sets on the processor (2025-04-21) or extractor/classifier/splitter (2026-02-09). */
    async create(input: { name: string; description?: string; entityId: string }, o?: RequestOptions): Promise<EvalSet> {
      const { entityId, ...rest } = input;
      if (!v2026) return fromSet((await request({ method: 'POST', path: '/evaluation_sets', body: { ...rest, processorId: entityId }, schema: envelopes.evaluationSet }, o)).evaluationSet);
      return fromSet2026(await request({ method: 'POST', path: '/evaluation_sets', body: { ...rest, entityId }, schema: evaluationSet2026Schema }, o));
    },
    async retrieve(id: string, o?: RequestOptions): Promise<EvalSet> {
      const path = `/evaluation_sets/${seg(id, 'evaluation set id')}`;
      if (!v2026) return fromSet((await request({ method: 'GET', path, schema: envelopes.evaluationSet }, o)).evaluationSet);
      return fromSet2026(await request({ method: 'GET', path, schema: evaluationSet2026Schema }, o));
    },
    /** GET /evaluation_sets (one page), of one processor/entity when given. */
    async list(params: { entityId?: string; nextPageToken?: string; maxPageSize?: number } = {}, o?: RequestOptions): Promise<Page<EvalSet>> {
      const { entityId, ...rest } = params;
      if (!v2026) {
        const r = await request({ method: 'GET', path: '/evaluation_sets', query: { ...rest, processorId: entityId }, schema: envelopes.evaluationSetList }, o);
        return page(r.evaluationSets.map(fromSet), r.nextPageToken);
      }
      const a = await request({ method: 'GET', path: '/evaluation_sets', query: { ...rest, entityId }, schema: lists2026.sets }, o);
      return page(a.data.map(fromSet2026), a.nextPageToken);
    },
    listAll(params: { entityId?: string; maxPageSize?: number } = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<EvalSet, void, undefined> {
      return paginate((nextPageToken) => sets.list({ ...params, nextPageToken }, o), o);
    },
  };

  function items(setId: string) {
    const setPath = `/evaluation_sets/${seg(setId, 'evaluation set id')}`;
    const itemPath = (id: string) => `${setPath}/items/${seg(id, 'evaluation set item id')}`;
    const ops = {
      /** Items per create call the version in effect takes. */
      maxPerCreate: sets.maxItemsPerCreate,
      /** Whether list rows carry expectedOutput (2025-04-21); on 2026-02-09 `retrieve` each item. */
      listHasOutputs: !v2026,
      /** GET /evaluation_sets/{id}/items (one page). */
      async list(params: { nextPageToken?: string; maxPageSize?: number } = {}, o?: RequestOptions): Promise<Page<SetItem>> {
        if (!v2026) {
          const r = await request({ method: 'GET', path: `${setPath}/items`, query: { ...params }, schema: envelopes.evaluationSetItemList }, o);
          return page(r.evaluationSetItems.map(fromItem), r.nextPageToken);
        }
        const a = await request({ method: 'GET', path: `${setPath}/items`, query: { ...params }, schema: lists2026.items }, o);
        return page(a.data.map((i) => fromItem2026(i, setId)), a.nextPageToken);
      },
      listAll(params: { maxPageSize?: number } = {}, o?: RequestOptions & PaginateOptions): AsyncGenerator<SetItem, void, undefined> {
        return paginate((nextPageToken) => ops.list({ ...params, nextPageToken }, o), o);
      },
      /**
       * Creates 1 to `maxPerCreate` items in one call, all or nothing, answered in the order sent.
       * More is a usage error, not several calls: a caller that journals a batch per call (the
       * upload) must know what one call holds.
       */
      async create(list: readonly NewItem[], o?: RequestOptions): Promise<SetItem[]> {
        if (list.length < 1 || list.length > ops.maxPerCreate) {
          throw new UsageError(`an item create takes 1 to ${ops.maxPerCreate} items with API version ${d.apiVersion || 'unset'} (got ${list.length})`, { hint: `send at most ${ops.maxPerCreate} items per call (--chunk-size)` });
        }
        if (!v2026) {
          if (list.length === 1) {
            const body = { evaluationSetId: setId, fileId: list[0].fileId, expectedOutput: list[0].expectedOutput };
            return [fromItem((await request({ method: 'POST', path: '/evaluation_set_items', body, schema: envelopes.evaluationSetItem }, o)).evaluationSetItem)];
          }
          const body = { evaluationSetId: setId, items: list.map((i) => ({ fileId: i.fileId, expectedOutput: i.expectedOutput })) };
          return (await request({ method: 'POST', path: '/evaluation_set_items/bulk', body, schema: envelopes.evaluationSetItemList }, o)).evaluationSetItems.map(fromItem);
        }
        const body = { items: list.map((i) => ({ fileId: i.fileId, expectedOutput: i.expectedOutput })) };
        const a = await request({ method: 'POST', path: `${setPath}/items`, body, schema: lists2026.created }, o);
        return a.evaluationSetItems.map((i) => fromItem2026(i, setId));
      },
      /** GET /evaluation_sets/{id}/items/{itemId}: with expectedOutput. 2025-04-21 has no such route: the set's list is searched (a 404 ApiError when absent). */
      async retrieve(itemId: string, o?: RequestOptions & PaginateOptions): Promise<SetItem> {
        if (v2026) return fromItem2026(await request({ method: 'GET', path: itemPath(itemId), schema: evaluationSetItem2026Schema }, o), setId);
        for await (const it of ops.listAll({ maxPageSize: 1000 }, o)) if (it.id === itemId) return it;
        throw new ApiError(`GET ${setPath}/items: item ${itemId} is not in evaluation set ${setId}`, { kind: 'http', method: 'GET', path: `${setPath}/items`, status: 404, retryable: false, hint: 'check the item id' });
      },
      /** Replaces the item's expectedOutput (idempotent). */
      async update(itemId: string, input: { expectedOutput: Json }, o?: RequestOptions): Promise<SetItem> {
        if (!v2026) {
          const path = `/evaluation_set_items/${seg(itemId, 'evaluation set item id')}`;
          return fromItem((await request({ method: 'POST', path, body: { expectedOutput: input.expectedOutput }, idempotent: true, schema: envelopes.evaluationSetItem }, o)).evaluationSetItem);
        }
        return fromItem2026(await request({ method: 'POST', path: itemPath(itemId), body: { expectedOutput: input.expectedOutput }, idempotent: true, schema: evaluationSetItem2026Schema }, o), setId);
      },
      async delete(itemId: string, o?: RequestOptions): Promise<void> {
        if (!v2026) await request({ method: 'DELETE', path: `/evaluation_set_items/${seg(itemId, 'evaluation set item id')}`, schema: envelopes.deleted }, o);
        else await request({ method: 'DELETE', path: itemPath(itemId), goneBody: { id: itemId }, schema: deletedSchema }, o);
      },
    };
    return ops;
  }

  return { files, sets, items };
}

export type FileOps = ReturnType<typeof makeSetFacade>['files'];
export type SetOps = ReturnType<typeof makeSetFacade>['sets'];
export type ItemOps = ReturnType<typeof makeSetFacade>['items'] extends (id: string) => infer R ? R : never;

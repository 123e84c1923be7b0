/**
 * The service client and resource model. Everything other modules need from src/api.
 */
export { createClient, clientFromEnv, guessContentType, DEFAULT_API_VERSION, DEFAULT_VERSION_HEADER, VERSION_HEADER_2026 } from './client.js';
export { API_2026_02_09, speaks2026 } from './version.js';
export { WORKSPACE_HEADER } from './http.js';
export { aType, typeOfId, isVersionId } from './ids.js';
export { kindOfType } from './model-2026-02-09.js';
export { runBody2026 } from './facade.js';
export { MAX_ITEMS_PER_CREATE_2025, MAX_ITEMS_PER_CREATE_2026 } from './evaluationSets.js';
export type { StoredFile, EvalSet, SetItem, NewItem, FileContentFlags, FileOps, SetOps, ItemOps } from './evaluationSets.js';
export type { Entity, EntityVersion, Run, AnyRunFile, CreateRunInput, ListRunsParams, EntityPageParams, EntityOps, RunOps } from './facade.js';
export type {
  CursorParams,
  ListEntitiesParams,
  ListEntityVersionsParams,
  CreateEntityInput,
  UpdateEntityInput,
  CreateEntityVersionInput,
  RunEntityRef,
  RunFile2026,
  CreateRun2026Input,
  CreateRunBatch2026Input,
  CreateEvaluationSetRunInput,
  ListRuns2026Params,
} from './client-2026.js';
export type {
  Client,
  ClientOptions,
  PageParams,
  CreateProcessorInput,
  UpdateProcessorInput,
  PublishProcessorInput,
  ListProcessorsParams,
  RunFileInput,
  CreateProcessorRunInput,
  ListProcessorRunsParams,
  UploadFileInput,
  CreateBatchProcessorRunInput,
  ListBatchProcessorRunsParams,
  WorkflowInput,
  WorkflowFileInput,
  CreateWorkflowRunInput,
  RunWorkflowsBatchInput,
  ListWorkflowRunsParams,
  UpdateWorkflowRunInput,
} from './client.js';
export { ApiError, isApiError, isRetryableStatus } from './errors.js';
export type { ApiErrorKind } from './errors.js';
export { parseRetryAfter, backoffDelay, realClock } from './http.js';
export type { Clock, FetchLike, RequestOptions, RequestSpec, RetryInfo } from './http.js';
export { lostAnswerError, pauseBeforeReadBack } from './lostAnswer.js';
export { paginate, collect } from './paging.js';
export type { PageFetcher, PaginateOptions } from './paging.js';
export type { WaitOptions } from './poll.js';
export * from './model.js';
export * from './model-2026-02-09.js';
export {
  verifyWebhook,
  signWebhook,
  webhookSignatureHeaders,
  isWebhookVerificationError,
  WebhookVerificationError,
  webhookEventSchema,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
  DEFAULT_MAX_FUTURE_SECONDS,
} from './webhooks.js';
export type { WebhookEvent, WebhookEventType, WebhookErrorKind, VerifyWebhookOptions, HeadersLike } from './webhooks.js';
export { startWebhookListener } from './webhookListener.js';
export type { WebhookListener, WebhookListenerOptions, ReceivedInfo } from './webhookListener.js';

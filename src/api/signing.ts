/**
 * The webhook signing scheme (service-facts.md), shared by the sandbox (which signs) and
 * verifyWebhook (which checks). Free of zod so that the sandbox starts without loading it.
 *
 *   signature = hex(HMAC-SHA256(secret, "v0:" + timestamp + ":" + rawBody))
 *
 * sent with the unix timestamp (seconds) in WEBHOOK_TIMESTAMP_HEADER and the signature in
 * WEBHOOK_SIGNATURE_HEADER. The header names are not published; these are evalkit's (and the
 * sandbox's) choice, in the style of the version header x-service-api-version.
 */
import { createHmac } from 'node:crypto';

export const WEBHOOK_TIMESTAMP_HEADER = 'x-service-webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'x-service-webhook-signature';

/** Event kinds the sandbox sends (service-facts.md names these and more). */
export const WEBHOOK_EVENT_TYPES = [
  'workflow_run.completed',
  'workflow_run.failed',
  'processor_run.processed',
  'processor_run.failed',
  'processor.created',
  'processor.updated',
  'processor.version.published',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function signWebhook(secret: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  const h = createHmac('sha256', secret);
  h.update(`v0:${timestamp}:`);
  h.update(rawBody);
  return h.digest('hex');
}

/** The headers a sender adds to one delivery attempt. */
export function webhookSignatureHeaders(secret: string, rawBody: string | Uint8Array, nowMs = Date.now()): Record<string, string> {
  const ts = Math.floor(nowMs / 1000);
  return { [WEBHOOK_TIMESTAMP_HEADER]: String(ts), [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, ts, rawBody) };
}


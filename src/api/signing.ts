/**
 * The webhook signing scheme (service-facts.md), shared by the sandbox (which signs) and
 * verifyWebhook (which checks). Free of zod so that the sandbox starts without loading it.
 *
 *   signature = hex(HMAC-SHA256(secret, "v0:" + timestamp + ":" + rawBody))
 *
 * sent with the unix timestamp (seconds) in WEBHOOK_TIMESTAMP_HEADER and the signature in
 * WEBHOOK_SIGNATURE_HEADER (evalkit's names, in the style of the version header
 * x-service-api-version), and under the real service's names (service-facts.md) as well, so
 * receivers written for either verify sandbox deliveries.
 */
import { createHmac } from 'node:crypto';

export const WEBHOOK_TIMESTAMP_HEADER = 'x-service-webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'x-service-webhook-signature';
export const SERVICE_WEBHOOK_TIMESTAMP_HEADER = 'x-extend-request-timestamp';
export const SERVICE_WEBHOOK_SIGNATURE_HEADER = 'x-extend-request-signature';
/** [timestamp, signature] header names a receiver accepts, evalkit's first. */
export const WEBHOOK_HEADER_PAIRS = [
  [WEBHOOK_TIMESTAMP_HEADER, WEBHOOK_SIGNATURE_HEADER],
  [SERVICE_WEBHOOK_TIMESTAMP_HEADER, SERVICE_WEBHOOK_SIGNATURE_HEADER],
] as const;

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

/** The headers a sender adds to one delivery attempt (both pairs of names, the same values). */
export function webhookSignatureHeaders(secret: string, rawBody: string | Uint8Array, nowMs = Date.now()): Record<string, string> {
  const ts = String(Math.floor(nowMs / 1000));
  const sig = signWebhook(secret, ts, rawBody);
  return Object.fromEntries(WEBHOOK_HEADER_PAIRS.flatMap(([t, s]) => [[t, ts], [s, sig]]));
}


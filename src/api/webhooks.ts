/**
 * Verifying received webhook events (the scheme is in signing.ts).
 *
 *   const event = verifyWebhook(secret, req.headers, rawBody); // throws WebhookVerificationError
 *
 * Verify the raw bytes as received: a body parsed and re-serialised no longer matches.
 */
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { EvalkitError } from '../util/errors.js';
import { signWebhook, WEBHOOK_HEADER_PAIRS } from './signing.js';

export {
  signWebhook, webhookSignatureHeaders, WEBHOOK_EVENT_TYPES, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, SERVICE_WEBHOOK_SIGNATURE_HEADER,
  SERVICE_WEBHOOK_TIMESTAMP_HEADER, type WebhookEventType,
} from './signing.js';

/** Receivers reject events older than this (service-facts.md)... */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** ...and allow this much clock skew into the future. */
export const DEFAULT_MAX_FUTURE_SECONDS = 60;

/** The envelope of every event; the payload's shape depends on the event type. */
export const webhookEventSchema = z.looseObject({
  eventId: z.string().min(1),
  eventType: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
});
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/**
 * - `unsigned`: the timestamp or signature header is missing;
 * - `malformed`: a header is present but not a unix timestamp / hex signature;
 * - `expired`: the timestamp is older than the tolerance (a replay, or a very late retry);
 * - `future`: the timestamp is ahead of this clock by more than the allowed skew;
 * - `tampered`: the signature does not match the body (changed body, or the wrong secret);
 * - `invalid-body`: correctly signed, but not an event envelope.
 */
export type WebhookErrorKind = 'unsigned' | 'malformed' | 'expired' | 'future' | 'tampered' | 'invalid-body';

export class WebhookVerificationError extends EvalkitError {
  readonly kind: WebhookErrorKind;
  constructor(kind: WebhookErrorKind, message: string, hint?: string) {
    super(message, { exitCode: 1, hint });
    this.kind = kind;
  }
}

export function isWebhookVerificationError(e: unknown): e is WebhookVerificationError {
  return e instanceof WebhookVerificationError;
}

export interface VerifyWebhookOptions {
  /** Oldest accepted event age in seconds; default 300. */
  toleranceSeconds?: number;
  /** Accepted clock skew into the future in seconds; default 60. */
  maxFutureSeconds?: number;
  /** Current time in ms (tests). */
  now?: number;
}

/** Node's IncomingHttpHeaders, a fetch Headers object, or a plain record (any name case). */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const rec = headers as Record<string, string | string[] | undefined>;
  let v = rec[name];
  if (v === undefined) {
    const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
    v = key === undefined ? undefined : rec[key];
  }
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Checks one received event and returns its envelope. Throws WebhookVerificationError (with a
 * distinct `kind`) for an unsigned, malformed, expired, future-dated or tampered event. The
 * signature is compared in constant time.
 */
export function verifyWebhook(secret: string, headers: HeadersLike, rawBody: string | Uint8Array, opts: VerifyWebhookOptions = {}): WebhookEvent {
  if (typeof secret !== 'string' || secret === '') throw new TypeError('verifyWebhook: the secret must be a non-empty string');
  // evalkit's header names, else the real service's (the same scheme under other names).
  const pair = WEBHOOK_HEADER_PAIRS.find(([t, g]) => header(headers, t) !== undefined || header(headers, g) !== undefined) ?? WEBHOOK_HEADER_PAIRS[0];
  const [tsHeader, sigHeader] = pair;
  const tsText = header(headers, tsHeader)?.trim();
  const sigText = header(headers, sigHeader)?.trim();
  if (!tsText || !sigText) {
    const missing = [!tsText && tsHeader, !sigText && sigHeader].filter(Boolean).join(' and ');
    const names = WEBHOOK_HEADER_PAIRS.map((p) => p.join(' + ')).join(', or ');
    throw new WebhookVerificationError('unsigned', `unsigned event: missing header ${missing} (accepted: ${names})`, 'only accept events signed by the service');
  }
  if (!/^\d{1,12}$/.test(tsText)) throw new WebhookVerificationError('malformed', `header ${tsHeader} must be a unix timestamp in seconds`);
  if (!/^[0-9a-fA-F]{64}$/.test(sigText)) throw new WebhookVerificationError('malformed', `header ${sigHeader} must be 64 hex digits (HMAC-SHA256)`);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const future = opts.maxFutureSeconds ?? DEFAULT_MAX_FUTURE_SECONDS;
  const age = Math.floor((opts.now ?? Date.now()) / 1000) - Number(tsText);
  // The signature is checked first, so a forged event learns nothing from the age checks.
  const expected = Buffer.from(signWebhook(secret, tsText, rawBody), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(sigText, 'hex'))) {
    throw new WebhookVerificationError('tampered', 'signature does not match the body: the event was changed, or signed with another secret', 'check that the secret is the endpoint\'s and that the raw body is verified before parsing');
  }
  if (age > tolerance) throw new WebhookVerificationError('expired', `event timestamp is ${age} s old (tolerance ${tolerance} s): possibly a replay`, 'check the receiver\'s clock; the sender retries with a fresh timestamp');
  if (age < -future) throw new WebhookVerificationError('future', `event timestamp is ${-age} s in the future (allowed skew ${future} s)`, 'check the clocks of sender and receiver');
  let doc: unknown;
  try {
    doc = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid-body', 'signed body is not JSON');
  }
  const r = webhookEventSchema.safeParse(doc);
  if (!r.success) throw new WebhookVerificationError('invalid-body', `signed body is not an event envelope {eventId, eventType, payload}: ${r.error.issues[0].message} at /${r.error.issues[0].path.join('/')}`);
  return r.data;
}

import { AWS_ACCESS_KEY_ID, HUGGING_FACE_TOKEN, replaceSecretKeys } from './credentials.js';

/**
 * The one redaction path for every log line and error text that can carry a secret: Step Functions
 * task tokens (a token lets anyone holding it resume or fail a run's task), presigned S3 URLs
 * (a signature grants access to an object until it expires), and credentials (AWS access key ids
 * and secret keys, Hugging Face tokens: core/contracts/credentials.ts) that a container's error,
 * a model's FailureReason or an SDK error may quote. Whatever the source of the text (a
 * port's error message, an SDK error that echoes its request, a detail of a log line), it goes
 * through `redactText` before it is written.
 *
 * Two layers: the secrets the caller knows (the token it holds) are replaced wherever they appear;
 * anything shaped like one is replaced too, so an error that carries some other token (a store
 * echoing a record, a stack trace) is caught without the caller knowing it.
 */

export const REDACTED_TOKEN = '<task token>';
export const REDACTED_SIGNATURE = '<redacted>';
export const REDACTED_CREDENTIAL = '<credential>';

/**
 * Step Functions task tokens are opaque strings of 1–2,048 characters (SendTaskSuccess API
 * reference, `taskToken`); in practice a long base64 run of several hundred characters. Any run of
 * base64/base64url characters this long is treated as one: no identifier the project logs (names
 * ≤ 63 characters, UUIDs, ARNs, which contain `:`) comes close.
 */
const OPAQUE_TOKEN = /[A-Za-z0-9+/_=-]{160,}/g;

/**
 * SigV4 query parameters of a presigned URL (S3 API reference, "Authenticating Requests: Using
 * Query Parameters"): the signature, the credential scope with the access key id, and a session
 * token. The URL's path stays readable.
 */
const PRESIGNED_PARAMETER = /(X-Amz-(?:Signature|Credential|Security-Token)=)[^&\s"'<>]+/gi;

/**
 * `text` with the known `secrets`, every token-shaped run, every presigned signature and every
 * credential-shaped run replaced.
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret !== '') redacted = redacted.split(secret).join(REDACTED_TOKEN);
  }
  redacted = redacted
    .replace(PRESIGNED_PARAMETER, `$1${REDACTED_SIGNATURE}`)
    .replace(AWS_ACCESS_KEY_ID, REDACTED_CREDENTIAL)
    .replace(HUGGING_FACE_TOKEN, REDACTED_CREDENTIAL);
  return replaceSecretKeys(redacted, REDACTED_CREDENTIAL).replace(OPAQUE_TOKEN, REDACTED_TOKEN);
}

/**
 * The error with its message and stack redacted in place, so its class and `name` (what Step
 * Functions' Retry/Catch and the callers match on) stay as they were. A non-Error is returned as
 * a redacted string.
 */
export function redactError(error: unknown, secrets: readonly (string | undefined)[] = []): unknown {
  if (!(error instanceof Error)) return redactText(String(error), secrets);
  error.message = redactText(error.message, secrets);
  if (error.stack !== undefined) error.stack = redactText(error.stack, secrets);
  if (error.cause !== undefined) error.cause = redactValue(error.cause, secrets);
  return error;
}

/** The message of any thrown value, redacted: what a log line's `errorMessage` carries. */
export function redactedMessage(error: unknown, secrets: readonly (string | undefined)[] = []): string {
  return redactText(error instanceof Error ? error.message : String(error), secrets);
}

/**
 * Strings anywhere inside `value` (plain objects, arrays, errors) redacted; other values (dates,
 * numbers, class instances) kept as they are. A cycle is cut where it closes.
 */
export function redactValue(
  value: unknown,
  secrets: readonly (string | undefined)[] = [],
  seen: WeakSet<object> = new WeakSet(),
): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (value instanceof Error) return redactError(value, secrets);
  if (Array.isArray(value)) return value.map((item: unknown) => redactValue(item, secrets, seen));
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, redactValue(item, secrets, seen)] as const),
  );
}

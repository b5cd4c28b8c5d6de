/**
 * Reading AWS SDK v3 errors without `any`: service exceptions carry `name`, `$metadata`,
 * `$retryable` and `$fault`, but only as properties of an `unknown` thrown value.
 */

/** Names AWS services use for "slow down" (SDK v3 `THROTTLING_ERROR_CODES`, @smithy/service-error-classification). */
const THROTTLING_NAMES: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'TransactionInProgressException',
  'RequestLimitExceeded',
  'BandwidthLimitExceeded',
  'LimitExceededException',
  'RequestThrottled',
  'SlowDown',
  'PriorRequestNotComplete',
  'EC2ThrottledException',
]);

/** Transient by name (SDK v3 `TRANSIENT_ERROR_CODES`): the request timed out on the way. */
const TRANSIENT_NAMES: ReadonlySet<string> = new Set([
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

function property(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || !(key in value)) return undefined;
  return (value as Record<string, unknown>)[key];
}

/** The HTTP status of the response that carried the error, when there was one. */
export function httpStatusOf(error: unknown): number | undefined {
  const status = property(property(error, '$metadata'), 'httpStatusCode');
  return typeof status === 'number' ? status : undefined;
}

export function errorName(error: unknown): string | undefined {
  const name = property(error, 'name');
  return typeof name === 'string' ? name : undefined;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

export function isThrottling(error: unknown): boolean {
  const name = errorName(error);
  if (name !== undefined && THROTTLING_NAMES.has(name)) return true;
  return property(property(error, '$retryable'), 'throttling') === true;
}

/**
 * Worth retrying later: throttling, a 5xx, or an error the SDK itself marks retryable. The SDK has
 * already retried these (its retry strategy) by the time one reaches us, so the workflow's Retry
 * with a longer backoff takes over.
 */
export function isTransient(error: unknown): boolean {
  if (isThrottling(error)) return true;
  const name = errorName(error);
  if (name !== undefined && TRANSIENT_NAMES.has(name)) return true;
  const status = httpStatusOf(error);
  if (status !== undefined && status >= 500) return true;
  return property(error, '$retryable') !== undefined || property(error, '$fault') === 'server';
}

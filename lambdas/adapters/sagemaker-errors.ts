import { QuotaExceededError, TransientServiceError } from '../../core/contracts/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * How SageMaker's control plane reports the situations the ports care about. It has no
 * "already exists" or "not found" error class for hosting resources: both are a
 * `ValidationException` whose message says so, e.g. `Cannot create already existing endpoint
 * "arn:…"` and `Could not find endpoint "arn:…"` (as seen in SDK users' reports).
 */

export type SageMakerResourceKind =
  | 'model'
  | 'endpoint configuration'
  | 'endpoint'
  | 'inference component'
  | 'compilation job'
  | 'optimization job'
  | 'run resources';

/** The call that failed, for messages that name the resource and what to do. */
export interface SageMakerCall {
  readonly operation: string;
  readonly kind: SageMakerResourceKind;
  readonly resourceName: string;
  /** The instance type the call asks for, when there is one: quota errors name it. */
  readonly instanceType?: string;
}

const VALIDATION = 'ValidationException';

export function isAlreadyExists(error: unknown): boolean {
  return errorName(error) === VALIDATION && /already exist/i.test(errorMessage(error));
}

export function isNotFound(error: unknown): boolean {
  const name = errorName(error);
  if (name === 'ResourceNotFound') return true;
  return name === VALIDATION && /could not find|does not exist|not found/i.test(errorMessage(error));
}

/**
 * The error a step should throw for a failed SageMaker call: `QuotaExceededError` for
 * `ResourceLimitExceeded`, `TransientServiceError` for throttling and server faults (the SDK has
 * already retried those), otherwise the SDK error itself, unchanged: its `name` is what Step
 * Functions matches.
 */
export function toStepError(error: unknown, call: SageMakerCall): unknown {
  const name = errorName(error);
  const subject = `${call.operation} for ${call.kind} ${call.resourceName}`;
  if (name === 'ResourceLimitExceeded') {
    return new QuotaExceededError(
      `${subject} failed: the account's SageMaker quota is reached (SageMaker says: ${errorMessage(error)}). ` +
        quotaFix(call),
      {
        operation: call.operation,
        resourceName: call.resourceName,
        ...(call.instanceType === undefined ? {} : { instanceType: call.instanceType }),
        sagemakerMessage: errorMessage(error),
      },
      { cause: error },
    );
  }
  if (isTransient(error)) {
    return new TransientServiceError(
      `${subject} failed after the SDK's own retries: ${name ?? 'Error'}: ${errorMessage(error)}. ` +
        'The workflow retries the step with a longer backoff; if this persists, other workloads in the ' +
        'account are using up the SageMaker API rate.',
      { operation: call.operation, resourceName: call.resourceName, errorName: name },
      { cause: error },
    );
  }
  return error;
}

function quotaFix(call: SageMakerCall): string {
  if (call.instanceType !== undefined) {
    return (
      `Request a quota increase for "${call.instanceType} for endpoint usage" in Service Quotas ` +
      `(service: Amazon SageMaker), delete other endpoints that use ${call.instanceType}, or lower ` +
      'maxConcurrentCandidates so fewer candidates are deployed at once.'
    );
  }
  return (
    'Request an increase of the quota SageMaker names in Service Quotas (service: Amazon SageMaker), ' +
    `or delete ${call.kind}s the account no longer needs.`
  );
}

/**
 * A job's Create call (Neo compilation, optimization). A job of that name already there is this
 * run's own, asked for again by a retried step (job names derive from the run id): both
 * CreateCompilationJob and CreateOptimizationJob declare `ResourceInUse` for it (SageMaker API
 * reference and Smithy model), and older responses say so in a `ValidationException`.
 */
export async function createJobOnce(send: () => Promise<unknown>, call: SageMakerCall): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (errorName(error) === 'ResourceInUse' || isAlreadyExists(error)) return;
    throw toStepError(error, call);
  }
}

/** A Describe call's answer, or `undefined` when the resource does not exist (or no longer does). */
export async function describeOrUndefined<T>(
  send: () => Promise<T>,
  call: SageMakerCall,
): Promise<T | undefined> {
  try {
    return await send();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw toStepError(error, call);
  }
}

/** A job's Stop call. Nothing to stop (the job is gone) is what stopping wanted. */
export async function stopJob(send: () => Promise<unknown>, call: SageMakerCall): Promise<void> {
  try {
    await send();
  } catch (error) {
    if (isNotFound(error)) return;
    throw toStepError(error, call);
  }
}

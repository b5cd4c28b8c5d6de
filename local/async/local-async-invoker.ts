/**
 * `AsyncInvoker` in local mode: `InvokeEndpointAsync` queues the request on the local model host's
 * async endpoint. It refuses what SageMaker Runtime refuses, with SageMaker's error name
 * (`ValidationError`): an endpoint that is not asynchronous or not in service, and values outside
 * the API's ranges. An endpoint that no longer exists, or is being deleted or failed, is
 * `EndpointFailedError`, as the AWS invoker maps SageMaker's "Endpoint … not found": the run stops.
 */
import type { AsyncInvocationReceipt, AsyncInvocationRequest, AsyncInvoker } from '../../core/async/index.js';
import { EndpointFailedError, ASYNC_RUN_LIMITS } from '../../core/contracts/index.js';
import { EndpointStatuses, type EndpointDescription } from '../../core/ports/index.js';
import { LOCAL_ACCOUNT_ID } from '../runner/index.js';
import type { LocalAsyncEndpoint } from '../platform/index.js';
import { LocalValidationError } from '../platform/index.js';

/** What the invoker needs of the local model host. */
export interface AsyncEndpointDirectory {
  describeEndpoint(endpointName: string): Promise<EndpointDescription | undefined>;
  /** The running async endpoint of that name, if there is one. */
  asyncEndpoint(endpointName: string): LocalAsyncEndpoint | undefined;
}

/** A deleted endpoint is `Deleting` until it is gone; a failed one serves nothing. */
const GONE_STATUSES: readonly string[] = [EndpointStatuses.deleting, EndpointStatuses.failed];

/** `InferenceId`: 1–64 characters (InvokeEndpointAsync reference, pattern `\A\S[\p{Print}]*\z`). */
const INFERENCE_ID_MAX = 64;

export class LocalAsyncInvoker implements AsyncInvoker {
  constructor(private readonly host: AsyncEndpointDirectory) {}

  async invokeEndpointAsync(request: AsyncInvocationRequest): Promise<AsyncInvocationReceipt> {
    const problem = requestProblem(request);
    if (problem !== undefined) {
      throw new LocalValidationError(`InvokeEndpointAsync on endpoint ${request.endpointName}: ${problem}`);
    }
    const description = await this.host.describeEndpoint(request.endpointName);
    if (description === undefined || GONE_STATUSES.includes(description.status)) {
      // SageMaker Runtime's own wording for an endpoint that does not exist, then the AWS invoker's.
      throw new EndpointFailedError(
        `InvokeEndpointAsync on endpoint ${request.endpointName} for ${request.inputLocation}: ${
          description === undefined
            ? `Endpoint ${request.endpointName} of account ${LOCAL_ACCOUNT_ID} not found.`
            : `Endpoint ${request.endpointName} is ${description.status}${
                description.failureReason === undefined ? '' : ` (${description.failureReason})`
              }.`
        } Expected the run's endpoint in service; it was deleted outside the run, so no further input is sent. Start the run again once the endpoint exists`,
        { endpointName: request.endpointName, inferenceId: request.inferenceId },
      );
    }
    const endpoint = this.host.asyncEndpoint(request.endpointName);
    if (description.asyncInference === undefined || endpoint === undefined) {
      throw new LocalValidationError(
        `Endpoint ${request.endpointName} is not an asynchronous endpoint: InvokeEndpointAsync needs an endpoint config with AsyncInferenceConfig; use InvokeEndpoint for a real-time endpoint`,
      );
    }
    if (description.status !== EndpointStatuses.inService) {
      throw new LocalValidationError(
        `Endpoint ${request.endpointName} is ${description.status}, expected InService${
          description.failureReason === undefined ? '' : ` (${description.failureReason})`
        }`,
      );
    }
    return endpoint.enqueue({
      inferenceId: request.inferenceId,
      inputLocation: request.inputLocation,
      contentType: request.contentType,
      invocationTimeoutSeconds: request.invocationTimeoutSeconds,
      requestTtlSeconds: request.requestTtlSeconds,
    });
  }
}

function requestProblem(request: AsyncInvocationRequest): string | undefined {
  const { invocationTimeoutSeconds: timeout, requestTtlSeconds: ttl, inferenceId } = request;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > ASYNC_RUN_LIMITS.maxInvocationTimeoutSeconds) {
    return `InvocationTimeoutSeconds: got ${timeout}, expected an integer from 1 to ${ASYNC_RUN_LIMITS.maxInvocationTimeoutSeconds}`;
  }
  if (
    !Number.isInteger(ttl) ||
    ttl < ASYNC_RUN_LIMITS.minRequestTtlSeconds ||
    ttl > ASYNC_RUN_LIMITS.maxRequestTtlSeconds
  ) {
    return `RequestTTLSeconds: got ${ttl}, expected an integer from ${ASYNC_RUN_LIMITS.minRequestTtlSeconds} to ${ASYNC_RUN_LIMITS.maxRequestTtlSeconds}`;
  }
  if (inferenceId.length < 1 || inferenceId.length > INFERENCE_ID_MAX || /^\s/.test(inferenceId)) {
    return `InferenceId: got ${JSON.stringify(inferenceId)}, expected 1 to ${INFERENCE_ID_MAX} printable characters not starting with a space`;
  }
  if (request.contentType === '') return 'ContentType: got an empty string, expected a MIME type';
  if (!/^(s3:\/\/[^/]+\/.+|file:\/\/\/.+)$/.test(request.inputLocation)) {
    return `InputLocation: got ${JSON.stringify(request.inputLocation)}, expected an s3:// URI of an object (file:/// in local mode)`;
  }
  return undefined;
}

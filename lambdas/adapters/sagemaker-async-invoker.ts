import { InvokeEndpointAsyncCommand, type SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { EndpointFailedError, TransientServiceError } from '../../core/contracts/index.js';
import type { AsyncInvocationReceipt, AsyncInvocationRequest, AsyncInvoker } from '../../core/async/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * `AsyncInvoker` over SageMaker's `InvokeEndpointAsync`: it queues the request (the input stays in
 * S3) and answers with where the result and a failure will be written. Throttling and 5xx
 * (`InternalFailure`, `ServiceUnavailable`) become `TransientServiceError`; an endpoint that does
 * not exist (deleted from outside the run) becomes `EndpointFailedError`, which stops the run; any
 * other `ValidationError` (bad input location, …) is rethrown as it is, with its name.
 */

/**
 * SageMaker Runtime's answer for an endpoint that does not exist: `ValidationError` "Endpoint <name>
 * of account <id> not found." (the same text for InvokeEndpoint and InvokeEndpointAsync; the
 * InvokeEndpointAsync API reference lists `ValidationError` for it without the text).
 */
const ENDPOINT_NOT_FOUND = /^Endpoint \S+ (of account \S+ )?not found/;

/** Whether an InvokeEndpointAsync error says the endpoint does not exist. */
export function isEndpointNotFound(error: unknown): boolean {
  return errorName(error) === 'ValidationError' && ENDPOINT_NOT_FOUND.test(errorMessage(error));
}

export interface SageMakerAsyncInvokerOptions {
  readonly client: SageMakerRuntimeClient;
}

export class SageMakerAsyncInvoker implements AsyncInvoker {
  private readonly client: SageMakerRuntimeClient;

  constructor(options: SageMakerAsyncInvokerOptions) {
    this.client = options.client;
  }

  async invokeEndpointAsync(request: AsyncInvocationRequest): Promise<AsyncInvocationReceipt> {
    let response;
    try {
      response = await this.client.send(
        new InvokeEndpointAsyncCommand({
          EndpointName: request.endpointName,
          InputLocation: request.inputLocation,
          ContentType: request.contentType,
          InferenceId: request.inferenceId,
          InvocationTimeoutSeconds: request.invocationTimeoutSeconds,
          RequestTTLSeconds: request.requestTtlSeconds,
        }),
      );
    } catch (error) {
      if (isTransient(error)) {
        throw new TransientServiceError(
          `InvokeEndpointAsync on endpoint ${request.endpointName} for ${request.inputLocation} failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
          { endpointName: request.endpointName, inferenceId: request.inferenceId },
          { cause: error },
        );
      }
      if (isEndpointNotFound(error)) {
        throw new EndpointFailedError(
          `InvokeEndpointAsync on endpoint ${request.endpointName} for ${request.inputLocation}: ${errorMessage(error)} Expected the run's endpoint in service; it was deleted outside the run, so no further input is sent. Start the run again once the endpoint exists`,
          { endpointName: request.endpointName, inferenceId: request.inferenceId },
          { cause: error },
        );
      }
      throw error;
    }
    if (response.OutputLocation === undefined || response.OutputLocation === '') {
      throw new TypeError(
        `InvokeEndpointAsync on endpoint ${request.endpointName} returned no OutputLocation, expected the S3 URI of the result`,
      );
    }
    return {
      inferenceId: response.InferenceId ?? request.inferenceId,
      outputLocation: response.OutputLocation,
      ...(response.FailureLocation === undefined || response.FailureLocation === ''
        ? {}
        : { failureLocation: response.FailureLocation }),
    };
  }
}

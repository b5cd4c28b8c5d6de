import { InvokeEndpointAsyncCommand, type SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { TransientServiceError } from '../../handlers/contracts/errors.js';
import type {
  AsyncInvocationReceipt,
  AsyncInvocationRequest,
  AsyncInvoker,
} from '../../handlers/async/ports.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * `AsyncInvoker` over SageMaker's `InvokeEndpointAsync`: it queues the request (the input stays in
 * S3) and answers with where the result and a failure will be written. Throttling and 5xx
 * (`InternalFailure`, `ServiceUnavailable`) become `TransientServiceError`; a `ValidationError`
 * (unknown endpoint, bad input location) is rethrown as it is, with its name.
 */

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

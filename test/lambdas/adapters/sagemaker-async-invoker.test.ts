import { InvokeEndpointAsyncCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type { AsyncInvocationRequest } from '../../../core/async/ports.js';
import { EndpointFailedError, TransientServiceError } from '../../../core/contracts/errors.js';
import { SageMakerAsyncInvoker } from '../../../lambdas/adapters/sagemaker-async-invoker.js';

const runtime = mockClient(SageMakerRuntimeClient);
const invoker = new SageMakerAsyncInvoker({ client: new SageMakerRuntimeClient({ region: 'us-east-1' }) });

const request: AsyncInvocationRequest = {
  endpointName: 'mso-async-endpoint',
  inputLocation: 's3://mso-async-input/inputs/0001.json',
  contentType: 'application/json',
  inferenceId: 'mso-nightly-1a2b3c4d-item-0',
  invocationTimeoutSeconds: 900,
  requestTtlSeconds: 3600,
};

describe('SageMakerAsyncInvoker', () => {
  beforeEach(() => {
    runtime.reset();
  });

  it('queues the input with the endpoint, content type, inference id, timeout and queue TTL', async () => {
    // Arrange
    runtime.on(InvokeEndpointAsyncCommand).resolves({
      InferenceId: 'mso-nightly-1a2b3c4d-item-0',
      OutputLocation: 's3://mso-async-output/results/abc.out',
      FailureLocation: 's3://mso-async-output/failures/abc-error.out',
    });

    // Act
    const receipt = await invoker.invokeEndpointAsync(request);

    // Assert
    expect(runtime.commandCalls(InvokeEndpointAsyncCommand)[0]?.args[0].input).toEqual({
      EndpointName: 'mso-async-endpoint',
      InputLocation: 's3://mso-async-input/inputs/0001.json',
      ContentType: 'application/json',
      InferenceId: 'mso-nightly-1a2b3c4d-item-0',
      InvocationTimeoutSeconds: 900,
      RequestTTLSeconds: 3600,
    });
    expect(receipt).toEqual({
      inferenceId: 'mso-nightly-1a2b3c4d-item-0',
      outputLocation: 's3://mso-async-output/results/abc.out',
      failureLocation: 's3://mso-async-output/failures/abc-error.out',
    });
  });

  it('leaves the failure location out when the endpoint has no failure path', async () => {
    runtime.on(InvokeEndpointAsyncCommand).resolves({ OutputLocation: 's3://b/o.out' });

    await expect(invoker.invokeEndpointAsync(request)).resolves.toEqual({
      inferenceId: 'mso-nightly-1a2b3c4d-item-0',
      outputLocation: 's3://b/o.out',
    });
  });

  it('fails when SageMaker returns no output location', async () => {
    runtime.on(InvokeEndpointAsyncCommand).resolves({ InferenceId: 'x' });

    await expect(invoker.invokeEndpointAsync(request)).rejects.toThrow('returned no OutputLocation');
  });

  it('fails with TransientServiceError when SageMaker is unavailable', async () => {
    runtime
      .on(InvokeEndpointAsyncCommand)
      .rejects(
        Object.assign(new Error('Service unavailable'), { name: 'ServiceUnavailable', $fault: 'server' }),
      );

    await expect(invoker.invokeEndpointAsync(request)).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('fails with any other ValidationError as SageMaker named it', async () => {
    const validation = Object.assign(new Error('Inference id is invalid.'), {
      name: 'ValidationError',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    });
    runtime.on(InvokeEndpointAsyncCommand).rejects(validation);

    await expect(invoker.invokeEndpointAsync(request)).rejects.toBe(validation);
  });

  it.each([
    ['Endpoint mso-async-endpoint of account 123456789012 not found.'],
    ['Endpoint mso-async-endpoint not found.'],
  ])(
    'fails with EndpointFailedError when SageMaker answers "%s" (the endpoint was deleted)',
    async (text) => {
      // Arrange
      const notFound = Object.assign(new Error(text), {
        name: 'ValidationError',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      });
      runtime.on(InvokeEndpointAsyncCommand).rejects(notFound);

      // Act
      const failure = await invoker.invokeEndpointAsync(request).catch((error: unknown) => error);

      // Assert
      expect(failure).toBeInstanceOf(EndpointFailedError);
      expect(failure).toMatchObject({
        name: 'EndpointFailedError',
        message: `InvokeEndpointAsync on endpoint mso-async-endpoint for s3://mso-async-input/inputs/0001.json: ${text} Expected the run's endpoint in service; it was deleted outside the run, so no further input is sent. Start the run again once the endpoint exists`,
        details: { endpointName: 'mso-async-endpoint', inferenceId: 'mso-nightly-1a2b3c4d-item-0' },
      });
    },
  );
});

import { describe, expect, it } from '@jest/globals';
import type { AsyncInvocationRequest } from '../../../core/async/ports.js';
import type { EndpointDescription } from '../../../core/ports/index.js';
import type { AsyncInvocation, LocalAsyncEndpoint } from '../../../local/platform/async-endpoint.js';
import { type AsyncEndpointDirectory, LocalAsyncInvoker } from '../../../local/async/local-async-invoker.js';
import { ASYNC_CONFIG } from '../platform/support/endpoint-harness.js';

const REQUEST: AsyncInvocationRequest = {
  endpointName: 'mso-r1-async',
  inputLocation: 's3://local-artifacts/inputs/0001.json',
  contentType: 'application/json',
  inferenceId: 'mso-r1-item-1',
  invocationTimeoutSeconds: 900,
  requestTtlSeconds: 21_600,
};

/** A host with one endpoint described as given; its async endpoint records what was queued. */
function directory(
  description: EndpointDescription | undefined,
  isAsync = true,
): {
  host: AsyncEndpointDirectory;
  queued: AsyncInvocation[];
} {
  const queued: AsyncInvocation[] = [];
  const endpoint = {
    enqueue: (invocation: AsyncInvocation) => {
      queued.push(invocation);
      return {
        inferenceId: invocation.inferenceId,
        outputLocation: `${ASYNC_CONFIG.s3OutputPath}u.out`,
        failureLocation: `${ASYNC_CONFIG.s3FailurePath}u-error.out`,
      };
    },
  } as unknown as LocalAsyncEndpoint;
  return {
    queued,
    host: {
      describeEndpoint: () => Promise.resolve(description),
      asyncEndpoint: () => (isAsync ? endpoint : undefined),
    },
  };
}

const IN_SERVICE: EndpointDescription = {
  endpointName: 'mso-r1-async',
  status: 'InService',
  asyncInference: ASYNC_CONFIG,
  variantName: 'AllTraffic',
  currentInstanceCount: 1,
};

describe('LocalAsyncInvoker', () => {
  it('queues the request on the async endpoint and returns where its result and failure go', async () => {
    // Prepare
    const { host, queued } = directory(IN_SERVICE);

    // Act
    const receipt = await new LocalAsyncInvoker(host).invokeEndpointAsync(REQUEST);

    // Assert
    expect(queued).toEqual([
      {
        inferenceId: 'mso-r1-item-1',
        inputLocation: 's3://local-artifacts/inputs/0001.json',
        contentType: 'application/json',
        invocationTimeoutSeconds: 900,
        requestTtlSeconds: 21_600,
      },
    ]);
    expect(receipt).toEqual({
      inferenceId: 'mso-r1-item-1',
      outputLocation: 's3://local-artifacts/runs/r1/async/output/u.out',
      failureLocation: 's3://local-artifacts/runs/r1/async/failures/u-error.out',
    });
  });

  it('fails with EndpointFailedError when the endpoint does not exist, quoting SageMaker Runtime', async () => {
    const { host } = directory(undefined);
    await expect(new LocalAsyncInvoker(host).invokeEndpointAsync(REQUEST)).rejects.toMatchObject({
      name: 'EndpointFailedError',
      message: `InvokeEndpointAsync on endpoint mso-r1-async for ${REQUEST.inputLocation}: Endpoint mso-r1-async of account 000000000000 not found. Expected the run's endpoint in service; it was deleted outside the run, so no further input is sent. Start the run again once the endpoint exists`,
    });
  });

  it('fails with EndpointFailedError when the endpoint is being deleted', async () => {
    const { host, queued } = directory({ ...IN_SERVICE, status: 'Deleting' });
    await expect(new LocalAsyncInvoker(host).invokeEndpointAsync(REQUEST)).rejects.toMatchObject({
      name: 'EndpointFailedError',
      message: expect.stringContaining(': Endpoint mso-r1-async is Deleting. Expected'),
    });
    expect(queued).toEqual([]);
  });

  it('fails with ValidationError when the endpoint is a real-time one', async () => {
    const { host } = directory({ endpointName: 'mso-r1-async', status: 'InService' }, false);
    await expect(new LocalAsyncInvoker(host).invokeEndpointAsync(REQUEST)).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringMatching(/^Endpoint mso-r1-async is not an asynchronous endpoint/),
    });
  });

  it('fails with EndpointFailedError when the endpoint failed, with its failure reason', async () => {
    const { host, queued } = directory({
      ...IN_SERVICE,
      status: 'Failed',
      failureReason: 'model server exited',
    });
    await expect(new LocalAsyncInvoker(host).invokeEndpointAsync(REQUEST)).rejects.toMatchObject({
      name: 'EndpointFailedError',
      message: expect.stringContaining(': Endpoint mso-r1-async is Failed (model server exited). Expected'),
    });
    expect(queued).toEqual([]);
  });

  it('fails with ValidationError when the endpoint is not in service yet', async () => {
    const { host, queued } = directory({ ...IN_SERVICE, status: 'Creating' });
    await expect(new LocalAsyncInvoker(host).invokeEndpointAsync(REQUEST)).rejects.toMatchObject({
      name: 'ValidationError',
      message: 'Endpoint mso-r1-async is Creating, expected InService',
    });
    expect(queued).toEqual([]);
  });

  it.each([
    [{ invocationTimeoutSeconds: 0 }, 'InvocationTimeoutSeconds: got 0, expected an integer from 1 to 3600'],
    [{ requestTtlSeconds: 30 }, 'RequestTTLSeconds: got 30, expected an integer from 60 to 21600'],
    [{ inferenceId: 'x'.repeat(65) }, 'InferenceId: got'],
    [
      { inputLocation: 'https://example.com/input.json' },
      'InputLocation: got "https://example.com/input.json"',
    ],
  ])('fails when a value is outside the API range: %j', async (change, message) => {
    const { host, queued } = directory(IN_SERVICE);
    await expect(
      new LocalAsyncInvoker(host).invokeEndpointAsync({ ...REQUEST, ...change }),
    ).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining(message),
    });
    expect(queued).toEqual([]);
  });
});

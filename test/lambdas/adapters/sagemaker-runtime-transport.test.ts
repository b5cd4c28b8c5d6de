import { beforeEach, describe, expect, it } from '@jest/globals';
import {
  InvokeEndpointCommand,
  ModelError,
  ModelNotReadyException,
  SageMakerRuntimeClient,
  SageMakerRuntimeServiceException,
  ServiceUnavailable,
  ValidationError,
} from '@aws-sdk/client-sagemaker-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { mockClient } from 'aws-sdk-client-mock';
import { Agent } from 'node:https';
import {
  classifyInvokeError,
  createLoadTestRuntimeClient,
  createSageMakerRuntimeTransport,
  loadTestHttpHandlerOptions,
} from '../../../lambdas/adapters/sagemaker-runtime-transport.js';
import type { InvokeRequest } from '../../../handlers/load-test/ports.js';

const runtime = mockClient(SageMakerRuntimeClient);
const REQUEST: InvokeRequest = {
  body: new TextEncoder().encode('{"inputs":[[1,2,3]]}'),
  contentType: 'application/json',
  accept: 'application/json',
};
const never = new AbortController().signal;

function serviceError(name: string, httpStatusCode: number, fault: 'client' | 'server', message: string) {
  return new SageMakerRuntimeServiceException({
    name,
    $fault: fault,
    $metadata: { httpStatusCode },
    message,
  });
}

describe('SageMaker runtime transport', () => {
  const client = new SageMakerRuntimeClient({ region: 'eu-west-1' });

  beforeEach(() => {
    runtime.reset();
  });

  it('sends InvokeEndpoint with the endpoint, body, content type and routing options', async () => {
    // Arrange
    runtime
      .on(InvokeEndpointCommand)
      .resolves({ Body: new Uint8Array(), ContentType: 'application/json' } as never);
    const transport = createSageMakerRuntimeTransport({
      client,
      endpointName: 'msopt-run-42-c3',
      targetVariant: 'AllTraffic',
      customAttributes: 'load-test=1',
    });

    // Act
    const outcome = await transport.invoke(REQUEST, never);

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    const calls = runtime.commandCalls(InvokeEndpointCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      EndpointName: 'msopt-run-42-c3',
      Body: REQUEST.body,
      ContentType: 'application/json',
      Accept: 'application/json',
      TargetVariant: 'AllTraffic',
      CustomAttributes: 'load-test=1',
    });
  });

  it("passes the step's abort signal on, so a deadline cuts the request", async () => {
    // Arrange
    runtime.on(InvokeEndpointCommand).resolves({});
    const transport = createSageMakerRuntimeTransport({ client, endpointName: 'e' });
    const step = new AbortController();

    // Act
    await transport.invoke(REQUEST, step.signal);

    // Assert
    // The stub is typed as send(command); the SDK also gets the options argument.
    expect((runtime.send.firstCall.args as unknown[])[1]).toEqual({ abortSignal: step.signal });
  });

  it('leaves out routing options that are not given', async () => {
    // Arrange
    runtime.on(InvokeEndpointCommand).resolves({});
    const transport = createSageMakerRuntimeTransport({ client, endpointName: 'msopt-run-42-c1' });

    // Act
    await transport.invoke({ body: REQUEST.body, contentType: 'text/csv' }, never);

    // Assert
    expect(runtime.commandCalls(InvokeEndpointCommand)[0]?.args[0].input).toEqual({
      EndpointName: 'msopt-run-42-c1',
      Body: REQUEST.body,
      ContentType: 'text/csv',
    });
  });

  it("reports a ModelError with the container's status, body and log stream", async () => {
    // Arrange
    runtime.on(InvokeEndpointCommand).rejects(
      new ModelError({
        $metadata: { httpStatusCode: 424 },
        message: 'Received server error (500) from primary with message "boom"',
        OriginalStatusCode: 500,
        OriginalMessage: '{"error":"CUDA out of memory"}',
        LogStreamArn: 'arn:aws:logs:eu-west-1:123456789012:log-group:/aws/sagemaker/Endpoints/x',
      }),
    );
    const transport = createSageMakerRuntimeTransport({ client, endpointName: 'e' });

    // Act
    const outcome = await transport.invoke(REQUEST, never);

    // Assert
    expect(outcome).toEqual({
      kind: 'model-error',
      statusCode: 500,
      message:
        '{"error":"CUDA out of memory"} (log stream arn:aws:logs:eu-west-1:123456789012:log-group:/aws/sagemaker/Endpoints/x)',
    });
  });
});

describe('classifyInvokeError', () => {
  it('treats throttling and HTTP 429 as throttled', () => {
    expect(
      classifyInvokeError(serviceError('ThrottlingException', 400, 'client', 'Rate exceeded'), never),
    ).toEqual({
      kind: 'throttled',
      statusCode: 400,
      message: 'ThrottlingException: Rate exceeded',
    });
    expect(classifyInvokeError(serviceError('TooManyRequests', 429, 'client', 'slow down'), never).kind).toBe(
      'throttled',
    );
  });

  it('treats a model still loading and an unavailable service as throttled', () => {
    const notReady = new ModelNotReadyException({ $metadata: { httpStatusCode: 429 }, message: 'loading' });
    const unavailable = new ServiceUnavailable({ $metadata: { httpStatusCode: 503 }, message: 'try again' });
    expect(classifyInvokeError(notReady, never)).toEqual({
      kind: 'throttled',
      statusCode: 429,
      message: 'ModelNotReadyException: loading',
    });
    expect(classifyInvokeError(unavailable, never).kind).toBe('throttled');
  });

  it('treats a ValidationError as a client error', () => {
    const invalid = new ValidationError({
      $metadata: { httpStatusCode: 400 },
      message: 'Endpoint e not found',
    });
    expect(classifyInvokeError(invalid, never)).toEqual({
      kind: 'client-error',
      statusCode: 400,
      message: 'ValidationError: Endpoint e not found',
    });
  });

  it("treats the handler's request timeout and aborts as timeouts", () => {
    // Arrange
    const timeout = Object.assign(new Error('request exceeded 65000 ms'), { name: 'TimeoutError' });
    const abort = new AbortController();
    abort.abort('deadline');

    // Act / Assert
    expect(classifyInvokeError(timeout, never)).toEqual({
      kind: 'timeout',
      message: 'TimeoutError: request exceeded 65000 ms',
    });
    expect(classifyInvokeError(new Error('aborted'), abort.signal)).toEqual({
      kind: 'timeout',
      message: 'aborted (deadline)',
    });
  });

  it('treats a failed connection as a client error', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
    expect(classifyInvokeError(refused, never)).toEqual({
      kind: 'client-error',
      message: 'request failed: Error: connect ECONNREFUSED 10.0.0.1:443',
    });
  });
});

describe('load-test runtime client', () => {
  it('never retries, so a throttle is reported as one', async () => {
    // Act
    const client = createLoadTestRuntimeClient({
      region: 'eu-west-1',
      maxSockets: 64,
      requestTimeoutMs: 65_000,
    });

    // Assert
    expect(await client.config.maxAttempts()).toBe(1);
    expect(client.config.requestHandler).toBeInstanceOf(NodeHttpHandler);
  });

  it('keeps connections alive, holds as many sockets as requests in flight and throws on timeout', () => {
    // Act
    const options = loadTestHttpHandlerOptions(200, 65_000);

    // Assert
    expect(options.httpsAgent).toBeInstanceOf(Agent);
    expect((options.httpsAgent as Agent).maxSockets).toBe(200);
    expect((options.httpsAgent as Agent & { keepAlive: boolean }).keepAlive).toBe(true);
    expect(options.requestTimeout).toBe(65_000);
    expect(options.throwOnRequestTimeout).toBe(true);
  });
});

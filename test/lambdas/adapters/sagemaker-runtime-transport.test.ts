import { describe, expect, it, jest } from '@jest/globals';
import {
  InvokeEndpointCommand,
  ModelNotReadyException,
  SageMakerRuntimeClient,
  SageMakerRuntimeServiceException,
  ServiceUnavailable,
  ValidationError,
} from '@aws-sdk/client-sagemaker-runtime';
import { HttpResponse } from '@smithy/core/protocols';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { HttpRequest } from '@smithy/types';
import { Agent } from 'node:https';
import { Readable } from 'node:stream';
import {
  classifyInvokeError,
  createLoadTestRuntimeClient,
  createSageMakerRuntimeTransport,
  loadTestHttpHandlerOptions,
} from '../../../lambdas/adapters/sagemaker-runtime-transport.js';
import type { InvokeRequest } from '../../../core/load-test/ports.js';

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

/** What the stub request handler received: the signed HTTP request and the options of `handle`. */
interface Sent {
  readonly request: HttpRequest;
  readonly abortSignal: unknown;
}

/**
 * A real runtime client (serializer, middleware, SigV4) over a request handler that records each
 * request and answers with `answer`: the transport resolves the SDK's handler itself rather than
 * calling `client.send`, so the test goes through the same stack a real call does.
 */
function stubbedClient(answer: () => HttpResponse): { client: SageMakerRuntimeClient; sent: Sent[] } {
  const sent: Sent[] = [];
  const requestHandler = {
    handle(request: HttpRequest, options?: { abortSignal?: unknown }) {
      sent.push({ request, abortSignal: options?.abortSignal });
      return Promise.resolve({ response: answer() });
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  const client = new SageMakerRuntimeClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
    requestHandler,
  });
  return { client, sent };
}

function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return new HttpResponse({
    statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: Readable.from([Buffer.from(JSON.stringify(body))]),
  });
}

const ok = (): HttpResponse => jsonResponse(200, { outputs: [1] });

describe('SageMaker runtime transport', () => {
  it('sends InvokeEndpoint with the endpoint, body, content type and routing options', async () => {
    // Arrange
    const { client, sent } = stubbedClient(ok);
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
    const request = sent[0]?.request;
    expect(request?.method).toBe('POST');
    expect(request?.hostname).toBe('runtime.sagemaker.eu-west-1.amazonaws.com');
    expect(request?.path).toBe('/endpoints/msopt-run-42-c3/invocations');
    expect(request?.body).toEqual(REQUEST.body);
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json',
      'x-amzn-sagemaker-target-variant': 'AllTraffic',
      'x-amzn-sagemaker-custom-attributes': 'load-test=1',
    });
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/sagemaker\/aws4_request, /,
    );
  });

  it("passes the step's abort signal on, so a deadline cuts the request", async () => {
    // Arrange
    const { client, sent } = stubbedClient(ok);
    const transport = createSageMakerRuntimeTransport({ client, endpointName: 'e' });
    const step = new AbortController();

    // Act
    await transport.invoke(REQUEST, step.signal);

    // Assert
    expect(sent[0]?.abortSignal).toBe(step.signal);
  });

  it('leaves out routing options that are not given', async () => {
    // Arrange
    const { client, sent } = stubbedClient(ok);
    const transport = createSageMakerRuntimeTransport({ client, endpointName: 'msopt-run-42-c1' });

    // Act
    await transport.invoke({ body: REQUEST.body, contentType: 'text/csv' }, never);

    // Assert
    const headers = Object.keys(sent[0]?.request.headers ?? {}).filter((name) =>
      /^(accept|x-amzn-sagemaker-)/.test(name),
    );
    expect(headers).toEqual([]);
    expect(sent[0]?.request.headers['content-type']).toBe('text/csv');
  });

  it('sends each request with its own body and signature over one resolved handler per step', async () => {
    // Arrange
    const { client, sent } = stubbedClient(ok);
    const transport = createSageMakerRuntimeTransport({ client, endpointName: 'e' });
    const resolve = jest.spyOn(InvokeEndpointCommand.prototype, 'resolveMiddleware');
    const second = new TextEncoder().encode('{"inputs":[[4,5,6]]}');

    // Act
    await transport.invoke(REQUEST, never);
    await transport.invoke({ ...REQUEST, body: second }, never);
    const nextStep = new AbortController().signal;
    await transport.invoke(REQUEST, nextStep);

    // Assert
    expect(resolve).toHaveBeenCalledTimes(2);
    expect(sent.map((call): unknown => call.request.body)).toEqual([REQUEST.body, second, REQUEST.body]);
    expect(sent.map((call) => call.abortSignal)).toEqual([never, never, nextStep]);
    expect(sent[0]?.request.headers.authorization).not.toBe(sent[1]?.request.headers.authorization);
    resolve.mockRestore();
  });

  it("reports a ModelError with the container's status, body and log stream", async () => {
    // Arrange: SageMaker's answer when the container fails (restJson1: the error's name in a header).
    const { client } = stubbedClient(() =>
      jsonResponse(
        424,
        {
          message: 'Received server error (500) from primary with message "boom"',
          OriginalStatusCode: 500,
          OriginalMessage: '{"error":"CUDA out of memory"}',
          LogStreamArn: 'arn:aws:logs:eu-west-1:123456789012:log-group:/aws/sagemaker/Endpoints/x',
        },
        { 'x-amzn-errortype': 'ModelError' },
      ),
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

  it('builds one SigV4 signer for all its requests, not one per request', async () => {
    // Arrange
    const client = createLoadTestRuntimeClient({
      region: 'eu-west-1',
      maxSockets: 8,
      requestTimeoutMs: 65_000,
    });

    // Act
    const first = await client.config.signer();
    const second = await client.config.signer();

    // Assert
    expect(second).toBe(first);
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

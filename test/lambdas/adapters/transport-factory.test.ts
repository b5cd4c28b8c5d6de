import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { describe, expect, it } from '@jest/globals';
import { HttpResponse } from '@smithy/core/protocols';
import type { HttpRequest } from '@smithy/types';
import { Readable } from 'node:stream';
import type { LoadTestClientOptions } from '../../../lambdas/adapters/sagemaker-runtime-transport.js';
import {
  createRuntimeStreamTransportFactory,
  createRuntimeTransportFactory,
} from '../../../lambdas/adapters/transport-factory.js';

/**
 * Records the sizes each client was built with; the clients are real, over a request handler that
 * records each request and answers 200.
 */
function recordingClientFactory(): {
  built: LoadTestClientOptions[];
  destroyed: number[];
  sent: HttpRequest[];
  createClient: (options: LoadTestClientOptions) => SageMakerRuntimeClient;
} {
  const built: LoadTestClientOptions[] = [];
  const destroyed: number[] = [];
  const sent: HttpRequest[] = [];
  const requestHandler = {
    handle(request: HttpRequest) {
      sent.push(request);
      const body = Readable.from([Buffer.from('{}')]);
      return Promise.resolve({ response: new HttpResponse({ statusCode: 200, headers: {}, body }) });
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  return {
    built,
    destroyed,
    sent,
    createClient: (options) => {
      const index = built.push(options) - 1;
      const client = new SageMakerRuntimeClient({
        region: 'us-east-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
        requestHandler,
      });
      const destroy = client.destroy.bind(client);
      client.destroy = () => {
        destroyed.push(index);
        destroy();
      };
      return client;
    },
  };
}

describe('createRuntimeTransportFactory', () => {
  it('opens a transport that invokes the named endpoint with the request body and content type', async () => {
    // Arrange
    const { createClient, sent } = recordingClientFactory();
    const open = createRuntimeTransportFactory({ createClient });
    const body = new TextEncoder().encode('{"x":1}');

    // Act
    const transport = open({ endpointName: 'mso-run-ep-c1', connections: 64, requestTimeoutMs: 70_000 });
    const outcome = await transport.invoke(
      { body, contentType: 'application/json' },
      new AbortController().signal,
    );

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(sent.map((request) => [request.method, request.path, request.headers['content-type']])).toEqual([
      ['POST', '/endpoints/mso-run-ep-c1/invocations', 'application/json'],
    ]);
    expect(sent[0]?.body).toEqual(body);
  });

  it('sizes the client for the plan: sockets for every connection and the plan request timeout', () => {
    const factory = recordingClientFactory();
    const open = createRuntimeTransportFactory({ region: 'eu-west-1', createClient: factory.createClient });

    open({ endpointName: 'e', connections: 128, requestTimeoutMs: 65_000 });

    expect(factory.built).toEqual([{ region: 'eu-west-1', maxSockets: 128, requestTimeoutMs: 65_000 }]);
  });

  it('reuses the client across invocations that ask for the same sizes', () => {
    const factory = recordingClientFactory();
    const open = createRuntimeTransportFactory({ createClient: factory.createClient });

    open({ endpointName: 'a', connections: 16, requestTimeoutMs: 60_000 });
    open({ endpointName: 'b', connections: 16, requestTimeoutMs: 60_000 });

    expect(factory.built).toHaveLength(1);
  });

  it('replaces the client, closing the old one, when a plan asks for more connections', () => {
    const factory = recordingClientFactory();
    const open = createRuntimeTransportFactory({ createClient: factory.createClient });

    open({ endpointName: 'a', connections: 16, requestTimeoutMs: 60_000 });
    open({ endpointName: 'a', connections: 256, requestTimeoutMs: 60_000 });

    expect(factory.built.map((options) => options.maxSockets)).toEqual([16, 256]);
    expect(factory.destroyed).toEqual([0]);
  });
});

describe('createRuntimeStreamTransportFactory', () => {
  it('opens a transport that sends InvokeEndpointWithResponseStream to the named endpoint', async () => {
    // Arrange
    const { createClient, sent } = recordingClientFactory();
    const open = createRuntimeStreamTransportFactory({ createClient });
    const body = new TextEncoder().encode('{"inputs":"hi","stream":true}');

    // Act
    const transport = open({ endpointName: 'mso-run-ep-c1', connections: 8, requestTimeoutMs: 70_000 });
    await transport.invokeStream(
      { body, contentType: 'application/json' },
      new AbortController().signal,
      () => {
        // the stub's body is not an event stream: only the request is asserted
      },
    );

    // Assert
    expect(sent.map((request) => [request.method, request.path, request.headers['content-type']])).toEqual([
      ['POST', '/endpoints/mso-run-ep-c1/invocations-response-stream', 'application/json'],
    ]);
    expect(sent[0]?.body).toEqual(body);
  });

  it('sizes its client for the plan and reuses it while the sizes stay the same', () => {
    // Arrange
    const factory = recordingClientFactory();
    const open = createRuntimeStreamTransportFactory({
      region: 'eu-west-1',
      createClient: factory.createClient,
    });

    // Act
    open({ endpointName: 'a', connections: 32, requestTimeoutMs: 120_000 });
    open({ endpointName: 'b', connections: 32, requestTimeoutMs: 120_000 });

    // Assert
    expect(factory.built).toEqual([{ region: 'eu-west-1', maxSockets: 32, requestTimeoutMs: 120_000 }]);
  });
});

import { afterEach, describe, expect, it } from '@jest/globals';
import {
  InternalStreamFailure,
  InvokeEndpointWithResponseStreamCommand,
  ModelError,
  ModelStreamError,
  SageMakerRuntimeClient,
  SageMakerRuntimeServiceException,
} from '@aws-sdk/client-sagemaker-runtime';
import type { ResponseStream } from '@aws-sdk/client-sagemaker-runtime';
import { HttpResponse } from '@smithy/core/protocols';
import { EventStreamCodec } from '@smithy/core/event-streams';
import type { MessageHeaders } from '@smithy/core/event-streams';
import type { HttpRequest } from '@smithy/types';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';
import { Readable } from 'node:stream';
import type { InvokeRequest } from '../../../core/load-test/ports.js';
import { createStreamParser, invokeStreamed } from '../../../core/load-test/streaming/index.js';
import { createSageMakerStreamTransport } from '../../../lambdas/adapters/sagemaker-stream-transport.js';
import { formatViolation, validateCommand } from '../../conformance/request-validator.js';
import { VirtualClock } from '../../core/load-test/support/virtual-clock.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (bytes: readonly Uint8Array[]): string[] => bytes.map((part) => new TextDecoder().decode(part));

const REQUEST: InvokeRequest = {
  body: utf8(
    '{"messages":[{"role":"user","content":"What is Deep Learning?"}],"max_tokens":3,"stream":true}',
  ),
  contentType: 'application/json',
  accept: 'text/event-stream',
};
const never = new AbortController().signal;
const client = new SageMakerRuntimeClient({
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
});
// Only this client's `send` is replaced: the wire tests below use clients of their own.
const runtime = mockClient(client);

/** An OpenAI-compatible chunk as vLLM writes it (`data: {...}` and a blank line). */
const chunk = (content: string, finishReason: string | null = null): string =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: finishReason }] })}\n\n`;

/** The SDK's `Body`: payload parts, then the events or the error the script ends with. */
async function* eventStream(
  parts: readonly string[],
  end: { event?: ResponseStream; throws?: Error; hang?: boolean } = {},
): AsyncGenerator<ResponseStream> {
  for (const part of parts) {
    await Promise.resolve();
    yield { PayloadPart: { Bytes: utf8(part) } };
  }
  if (end.event !== undefined) yield end.event;
  if (end.throws !== undefined) throw end.throws;
  if (end.hang === true) await new Promise<never>(() => undefined);
}

/** Collects the parts handed to `onPart`, as a load worker's parser would receive them. */
function collector(): { parts: Uint8Array[]; onPart: (bytes: Uint8Array) => void } {
  const parts: Uint8Array[] = [];
  return { parts, onPart: (bytes) => parts.push(bytes) };
}

afterEach(() => {
  runtime.reset();
});

describe('SageMaker stream transport', () => {
  it('sends InvokeEndpointWithResponseStream with the endpoint, body, content types and routing options', async () => {
    // Prepare
    runtime.on(InvokeEndpointWithResponseStreamCommand).resolves({ Body: eventStream([chunk('Deep')]) });
    const transport = createSageMakerStreamTransport({
      client,
      endpointName: 'msopt-run-42-c3',
      requestTimeoutMs: 65_000,
      targetVariant: 'AllTraffic',
      customAttributes: 'load-test=1',
      inferenceComponentName: 'msopt-run-42-c3-ic',
    });

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, () => undefined);

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    const calls = runtime.commandCalls(InvokeEndpointWithResponseStreamCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      {
        EndpointName: 'msopt-run-42-c3',
        TargetVariant: 'AllTraffic',
        CustomAttributes: 'load-test=1',
        InferenceComponentName: 'msopt-run-42-c3-ic',
        Body: REQUEST.body,
        ContentType: 'application/json',
        Accept: 'text/event-stream',
      },
    ]);
    expect(calls.flatMap((call) => validateCommand(call.args[0] as never)).map(formatViolation)).toEqual([]);
  });

  it('is refused by the conformance check when the endpoint name breaks the model pattern', async () => {
    // Prepare
    runtime.on(InvokeEndpointWithResponseStreamCommand).resolves({ Body: eventStream([]) });
    const transport = createSageMakerStreamTransport({
      client,
      endpointName: 'msopt_run',
      requestTimeoutMs: 65_000,
    });

    // Act
    await transport.invokeStream(REQUEST, never, () => undefined);

    // Assert
    const calls = runtime.commandCalls(InvokeEndpointWithResponseStreamCommand);
    expect(calls.flatMap((call) => validateCommand(call.args[0] as never)).map(formatViolation)).toEqual([
      'InvokeEndpointWithResponseStream.EndpointName: does not match the pattern ^[a-zA-Z0-9](-*[a-zA-Z0-9])*$; given "msopt_run" (source: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpointWithResponseStream.html)',
    ]);
  });

  it('leaves out the accept header and routing options that are not given', async () => {
    // Prepare
    runtime.on(InvokeEndpointWithResponseStreamCommand).resolves({ Body: eventStream([]) });
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });

    // Act
    await transport.invokeStream(
      { body: REQUEST.body, contentType: 'application/json' },
      never,
      () => undefined,
    );

    // Assert
    const calls = runtime.commandCalls(InvokeEndpointWithResponseStreamCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      { EndpointName: 'e', Body: REQUEST.body, ContentType: 'application/json' },
    ]);
  });

  it('hands each payload part over in order, and the real parser reads tokens timed at their arrival', async () => {
    // Prepare: each part arrives 30 ms after the previous one on a virtual clock.
    const clock = new VirtualClock();
    const parts = [chunk('Deep'), chunk(' learning'), chunk(' is', 'length') + 'data: [DONE]\n\n'];
    async function* timed(): AsyncGenerator<ResponseStream> {
      for (const part of parts) {
        await clock.sleepUntil(clock.nowUs() + 30_000);
        yield { PayloadPart: { Bytes: utf8(part) } };
      }
    }
    runtime.on(InvokeEndpointWithResponseStreamCommand).resolves({ Body: timed() });
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });

    // Act
    const result = await invokeStreamed(transport, REQUEST, never, createStreamParser('openai'), clock);

    // Assert
    expect(result).toEqual({
      outcome: { kind: 'ok' },
      timing: {
        e2eUs: 90_000,
        ttftUs: 30_000,
        interTokenUs: [30_000, 30_000],
        outputTokens: 3,
        outputTokenSource: 'counted',
        countedTokens: 3,
        finishReason: 'length',
      },
    });
  });

  it('fails as a timeout when SageMaker ends the stream with ModelInvocationTimeExceeded, after the parts before it', async () => {
    // Prepare: the SDK throws the stream's error events from the iteration.
    const error = new ModelStreamError({
      $metadata: {},
      message: 'Your model primary did not complete sending the inference response in the allotted time.',
      ErrorCode: 'ModelInvocationTimeExceeded',
    });
    runtime
      .on(InvokeEndpointWithResponseStreamCommand)
      .resolves({ Body: eventStream([chunk('Deep')], { throws: error }) });
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });
    const { parts, onPart } = collector();

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, onPart);

    // Assert
    expect(outcome).toEqual({
      kind: 'timeout',
      message:
        'ModelStreamError ModelInvocationTimeExceeded: Your model primary did not complete sending the inference response in the allotted time.',
    });
    expect(text(parts)).toEqual([chunk('Deep')]);
  });

  it('fails as throttled on an InternalStreamFailure event', async () => {
    // Prepare
    runtime.on(InvokeEndpointWithResponseStreamCommand).resolves({
      Body: eventStream([chunk('Deep')], {
        event: {
          InternalStreamFailure: new InternalStreamFailure({
            $metadata: {},
            message: 'try again',
            Message: 'try again',
          }),
        },
      }),
    });
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, () => undefined);

    // Assert
    expect(outcome).toEqual({ kind: 'throttled', message: 'InternalStreamFailure: try again' });
  });

  it('reads a ModelStreamError the operation answers with before any part as the stream error it is', async () => {
    // Prepare
    runtime.on(InvokeEndpointWithResponseStreamCommand).rejects(
      new ModelStreamError({
        $metadata: { httpStatusCode: 424 },
        message: 'reset',
        ErrorCode: 'StreamBroken',
      }),
    );
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, () => undefined);

    // Assert
    expect(outcome).toEqual({ kind: 'client-error', message: 'ModelStreamError StreamBroken: reset' });
  });

  it('reads an InternalStreamFailure the operation answers with as throttled', async () => {
    // Prepare
    runtime
      .on(InvokeEndpointWithResponseStreamCommand)
      .rejects(new InternalStreamFailure({ $metadata: { httpStatusCode: 500 }, message: 'unknown failure' }));
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, () => undefined);

    // Assert
    expect(outcome).toEqual({ kind: 'throttled', message: 'InternalStreamFailure: unknown failure' });
  });

  it("reports a ModelError with the container's status, body and log stream", async () => {
    // Prepare
    runtime.on(InvokeEndpointWithResponseStreamCommand).rejects(
      new ModelError({
        $metadata: { httpStatusCode: 424 },
        message: 'Received client error (400) from primary',
        OriginalStatusCode: 400,
        OriginalMessage: '{"error":"stream is not supported by this container"}',
        LogStreamArn: 'arn:aws:logs:eu-west-1:123456789012:log-group:/aws/sagemaker/Endpoints/e',
      }),
    );
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, () => undefined);

    // Assert
    expect(outcome).toEqual({
      kind: 'model-error',
      statusCode: 400,
      message:
        '{"error":"stream is not supported by this container"} (log stream arn:aws:logs:eu-west-1:123456789012:log-group:/aws/sagemaker/Endpoints/e)',
    });
  });

  it('reports throttling as throttled', async () => {
    // Prepare
    runtime.on(InvokeEndpointWithResponseStreamCommand).rejects(
      new SageMakerRuntimeServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        $metadata: { httpStatusCode: 429 },
        message: 'Rate exceeded',
      }),
    );
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, () => undefined);

    // Assert
    expect(outcome).toEqual({
      kind: 'throttled',
      statusCode: 429,
      message: 'ThrottlingException: Rate exceeded',
    });
  });

  it('fails as a timeout when the stream stalls past the request timeout, and passes no part on after', async () => {
    // Prepare
    runtime
      .on(InvokeEndpointWithResponseStreamCommand)
      .resolves({ Body: eventStream([chunk('Deep')], { hang: true }) });
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 50 });
    const { parts, onPart } = collector();

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, onPart);

    // Assert
    expect(outcome).toEqual({ kind: 'timeout', message: 'no complete stream within 50 ms' });
    expect(text(parts)).toEqual([chunk('Deep')]);
  });

  it("settles as a timeout with the reason when the step's signal aborts mid-stream, and aborts the SDK call", async () => {
    // Prepare
    runtime
      .on(InvokeEndpointWithResponseStreamCommand)
      .resolves({ Body: eventStream([chunk('Deep')], { hang: true }) });
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });
    const step = new AbortController();
    setTimeout(() => {
      step.abort('deadline');
    }, 20);

    // Act
    const outcome = await transport.invokeStream(REQUEST, step.signal, () => undefined);

    // Assert
    expect(outcome).toEqual({ kind: 'timeout', message: 'aborted (deadline)' });
    const call = runtime.commandCalls(InvokeEndpointWithResponseStreamCommand)[0];
    // `send(command, options)`: sinon types the call with the command only.
    const options = (call?.args as unknown[] | undefined)?.[1] as { abortSignal?: AbortSignal } | undefined;
    expect(options?.abortSignal?.aborted).toBe(true);
  });

  it('refuses to send when the step is already aborted', async () => {
    // Prepare
    const transport = createSageMakerStreamTransport({ client, endpointName: 'e', requestTimeoutMs: 65_000 });
    const step = new AbortController();
    step.abort('step over');

    // Act
    const outcome = await transport.invokeStream(REQUEST, step.signal, () => undefined);

    // Assert
    expect(outcome).toEqual({ kind: 'timeout', message: 'aborted (step over)' });
    expect(runtime.commandCalls(InvokeEndpointWithResponseStreamCommand)).toEqual([]);
  });
});

/** An event-stream message as SageMaker frames it (AWS event stream encoding, restJson1 events). */
function frame(headers: Record<string, string>, body: Uint8Array): Uint8Array {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const encoded: MessageHeaders = {};
  for (const [name, value] of Object.entries(headers)) encoded[name] = { type: 'string', value };
  return codec.encode({ headers: encoded, body });
}

const payloadPart = (part: string): Uint8Array =>
  frame(
    { ':message-type': 'event', ':event-type': 'PayloadPart', ':content-type': 'application/octet-stream' },
    utf8(part),
  );

/**
 * A real runtime client (serializer, SigV4, event-stream deserializer) over a request handler that
 * records the signed request and answers 200 with these frames, one network chunk each.
 */
function wireClient(frames: readonly Uint8Array[]): { client: SageMakerRuntimeClient; sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  const requestHandler = {
    handle(request: HttpRequest) {
      sent.push(request);
      return Promise.resolve({
        response: new HttpResponse({
          statusCode: 200,
          headers: { 'content-type': 'application/vnd.amazon.eventstream' },
          body: Readable.from(frames.map((bytes) => Buffer.from(bytes))),
        }),
      });
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
  const wired = new SageMakerRuntimeClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
    requestHandler,
  });
  return { client: wired, sent };
}

describe('SageMaker stream transport on the wire', () => {
  it('POSTs to invocations-response-stream and hands over the decoded payload parts', async () => {
    // Prepare
    const { client: wired, sent } = wireClient([payloadPart(chunk('Deep')), payloadPart('data: [DONE]\n\n')]);
    const transport = createSageMakerStreamTransport({
      client: wired,
      endpointName: 'msopt-run-42-c3',
      requestTimeoutMs: 65_000,
    });
    const { parts, onPart } = collector();

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, onPart);

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(text(parts)).toEqual([chunk('Deep'), 'data: [DONE]\n\n']);
    expect(sent[0]?.method).toBe('POST');
    expect(sent[0]?.hostname).toBe('runtime.sagemaker.eu-west-1.amazonaws.com');
    expect(sent[0]?.path).toBe('/endpoints/msopt-run-42-c3/invocations-response-stream');
    expect(sent[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-amzn-sagemaker-accept': 'text/event-stream',
    });
  });

  it('reads a ModelStreamError exception frame as the outcome it maps to', async () => {
    // Prepare
    const error = frame(
      {
        ':message-type': 'exception',
        ':exception-type': 'ModelStreamError',
        ':content-type': 'application/json',
      },
      utf8(JSON.stringify({ Message: 'connection reset', ErrorCode: 'StreamBroken' })),
    );
    const { client: wired } = wireClient([payloadPart(chunk('Deep')), error]);
    const transport = createSageMakerStreamTransport({
      client: wired,
      endpointName: 'e',
      requestTimeoutMs: 65_000,
    });
    const { parts, onPart } = collector();

    // Act
    const outcome = await transport.invokeStream(REQUEST, never, onPart);

    // Assert
    expect(outcome).toEqual({
      kind: 'client-error',
      message: 'ModelStreamError StreamBroken: connection reset',
    });
    expect(text(parts)).toEqual([chunk('Deep')]);
  });
});

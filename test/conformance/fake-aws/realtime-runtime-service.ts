import { Readable } from 'node:stream';
import {
  InvokeEndpointCommand,
  InvokeEndpointWithResponseStreamCommand,
  type SageMakerRuntimeClient,
  type SageMakerRuntimeClientConfig,
  ValidationError,
} from '@aws-sdk/client-sagemaker-runtime';
import { EventStreamCodec } from '@smithy/core/event-streams';
import type { HttpRequest, HttpResponse } from '@smithy/types';
import type { Clock } from '../../../core/load-test/index.js';
import { awsValidationMessage, type AwsRecorder, recordCall } from './recorder.js';
import type { OperationSchema } from '../request-validator.js';
import { ACCOUNT_ID, type FakeSageMakerService } from './sagemaker-service.js';
import type { StreamFormat } from '../../../core/contracts/stream-format.js';

/**
 * SageMaker Runtime's real-time data plane at the HTTP level, under the real load-test transports:
 * the client's middleware (serialization, signing, deserialization, the event-stream decoder) runs
 * as it does on AWS, and only the socket is replaced. `InvokeEndpoint` answers the container's
 * JSON after the endpoint's latency; `InvokeEndpointWithResponseStream` answers an event stream of
 * `PayloadPart` events carrying the container's stream format. An endpoint that does not exist or
 * is not InService is refused with `ValidationError`, as SageMaker refuses it
 * (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html), and
 * so is a request that names no inference component on an endpoint made for components, or one
 * not in service there (FakeSageMakerService.invocationRefusal).
 */
type HttpHandler = NonNullable<SageMakerRuntimeClientConfig['requestHandler']>;

/** Where the REST binding puts `InferenceComponentName` (the SageMaker Runtime model's httpHeader). */
const INFERENCE_COMPONENT_HEADER = 'x-amzn-sagemaker-inference-component';

/** A request header by name, whatever its case (HTTP header names are case-insensitive). */
function headerOf(request: HttpRequest, name: string): string | undefined {
  const found = Object.entries(request.headers).find(([key]) => key.toLowerCase() === name);
  return found?.[1];
}

export class FakeRealtimeRuntime {
  readonly httpHandler: HttpHandler;

  constructor(
    private readonly sagemaker: FakeSageMakerService,
    private readonly answer: {
      readonly latencyMs: number;
      readonly streamFormat: StreamFormat;
      /** Answers after `latencyMs` on this clock (a load worker's simulated time). @default real timers */
      readonly clock?: Clock;
    },
  ) {
    this.httpHandler = {
      handle: (request: HttpRequest, options?: { abortSignal?: unknown }) =>
        this.handle(request, options?.abortSignal as AbortSignal | undefined),
      updateHttpClientConfig: () => undefined,
      httpHandlerConfigs: () => ({}),
    };
  }

  /**
   * Records and validates each request as the other fakes do, in the client's first middleware step
   * (the load-test transport resolves the client's middleware itself rather than calling `send`).
   */
  install(client: SageMakerRuntimeClient, recorder: AwsRecorder): void {
    const schemas: Readonly<Record<string, OperationSchema>> = {
      InvokeEndpointCommand: schemaOf(
        new InvokeEndpointCommand({ EndpointName: '', Body: new Uint8Array() }),
      ),
      InvokeEndpointWithResponseStreamCommand: schemaOf(
        new InvokeEndpointWithResponseStreamCommand({ EndpointName: '', Body: new Uint8Array() }),
      ),
    };
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String(context.commandName);
        const schema = schemas[command];
        if (schema === undefined)
          throw new Error(`FakeRealtimeRuntime: ${command} is not faked; add it to the fake`);
        const violations = recordCall(recorder, 'SageMakerRuntimeClient', command, args.input, {
          schema,
          input: args.input,
        });
        if (violations.length > 0) {
          throw new ValidationError({
            message: awsValidationMessage(violations),
            $metadata: { httpStatusCode: 400 },
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'conformanceRecorder', priority: 'high' },
    );
  }

  private async handle(
    request: HttpRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ response: HttpResponse }> {
    const match = /^\/endpoints\/([^/]+)\/(invocations|invocations-response-stream)$/.exec(request.path);
    if (match === null)
      throw new Error(`FakeRealtimeRuntime: ${request.method} ${request.path} is not faked`);
    const endpointName = decodeURIComponent(match[1] ?? '');
    const endpoint = this.sagemaker.endpoints.get(endpointName);
    if (endpoint?.status !== 'InService') {
      return {
        response: json(
          400,
          { 'x-amzn-errortype': 'ValidationError' },
          {
            message: `Endpoint ${endpointName} of account ${ACCOUNT_ID} not found or not InService.`,
          },
        ),
      };
    }
    const refusal = this.sagemaker.invocationRefusal(
      endpointName,
      headerOf(request, INFERENCE_COMPONENT_HEADER),
    );
    if (refusal !== undefined) {
      return { response: json(400, { 'x-amzn-errortype': 'ValidationError' }, { message: refusal }) };
    }
    await delay(this.answer.latencyMs, signal, this.answer.clock);
    if (match[2] === 'invocations') {
      return { response: json(200, {}, { predictions: [[0.1, 0.9]] }) };
    }
    const codec = new EventStreamCodec(
      (bytes) => new TextDecoder().decode(bytes),
      (text) => new TextEncoder().encode(text),
    );
    const messages = streamedParts(this.answer.streamFormat).map((part) =>
      codec.encode({
        headers: {
          ':message-type': { type: 'string', value: 'event' },
          ':event-type': { type: 'string', value: 'PayloadPart' },
          ':content-type': { type: 'string', value: 'application/octet-stream' },
        },
        body: new TextEncoder().encode(part),
      }),
    );
    return {
      response: {
        statusCode: 200,
        headers: {
          'content-type': 'application/vnd.amazon.eventstream',
          'x-amzn-sagemaker-content-type': 'application/json',
        },
        body: Readable.from(messages),
      },
    };
  }
}

function schemaOf(command: object): OperationSchema {
  return (command as { schema: OperationSchema }).schema;
}

function json(statusCode: number, headers: Record<string, string>, body: unknown): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: Readable.from([Buffer.from(JSON.stringify(body))]),
  };
}

function delay(ms: number, signal: AbortSignal | undefined, clock: Clock | undefined): Promise<void> {
  const aborted = (): Error => Object.assign(new Error('Request aborted'), { name: 'AbortError' });
  if (clock !== undefined) {
    return clock.sleepUntil(clock.nowUs() + ms * 1000, signal).then(() => {
      if (signal?.aborted === true) throw aborted();
    });
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(aborted());
      },
      { once: true },
    );
  });
}

/**
 * Two generated tokens and the terminal event, in each container's stream format (the parsers in
 * core/load-test/streaming/ cite each format's source).
 */
export function streamedParts(format: StreamFormat): string[] {
  const last = { generated_text: 'a b', details: { finish_reason: 'length', generated_tokens: 2 } };
  switch (format) {
    case 'tgi':
      return [
        `data:${JSON.stringify({ token: { id: 1, text: ' a', special: false }, generated_text: null, details: null })}\n\n`,
        `data:${JSON.stringify({ token: { id: 2, text: ' b', special: false }, ...last })}\n\n`,
      ];
    case 'lmi-jsonlines':
      return [
        `${JSON.stringify({ token: { id: 1, text: ' a', log_prob: -0.1 } })}\n`,
        `${JSON.stringify({ token: { id: 2, text: ' b', log_prob: -0.1 }, ...last })}\n`,
      ];
    case 'lmi-sse':
      return [
        `data: ${JSON.stringify({ token: { id: 1, text: ' a', log_prob: -0.1 } })}\n\n`,
        `data: ${JSON.stringify({ token: { id: 2, text: ' b', log_prob: -0.1 }, ...last })}\n\n`,
      ];
    case 'openai':
      return [
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ' a' }, finish_reason: null }] })}\n\n`,
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: ' b' }, finish_reason: 'length' }] })}\n\n`,
        'data: [DONE]\n\n',
      ];
  }
}

import { Agent } from 'node:https';
import { InvokeEndpointCommand, ModelError, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { InvokeEndpointCommandInput } from '@aws-sdk/client-sagemaker-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import { describeError } from '../../core/contracts/index.js';
import { truncateMessage } from '../../core/load-test/index.js';
import type { InvokeOutcome, InvokeTransport } from '../../core/load-test/index.js';

/** Connecting to the regional runtime endpoint takes milliseconds; 5 s means it is unreachable. */
const CONNECTION_TIMEOUT_MS = 5_000;

/**
 * HTTP options for a load-generating client:
 * - `maxSockets` ≥ the worker's concurrency: the SDK's default agent allows 50 sockets per
 *   client, and requests above that queue inside the client, their wait reported as latency
 *   (https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/node-configuring-maxsockets.html);
 * - keep-alive, so each request does not pay a TLS handshake;
 * - a request timeout that throws (without `throwOnRequestTimeout` the handler only logs a
 *   warning), longer than SageMaker's own 60 s invocation limit (see SAGEMAKER_INVOCATION_LIMIT_MS).
 */
export function loadTestHttpHandlerOptions(
  maxSockets: number,
  requestTimeoutMs: number,
): NodeHttpHandlerOptions {
  return {
    httpsAgent: new Agent({ keepAlive: true, maxSockets }),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    requestTimeout: requestTimeoutMs,
    throwOnRequestTimeout: true,
  };
}

export interface LoadTestClientOptions {
  /** @default the SDK's region chain (AWS_REGION in Lambda) */
  readonly region?: string;
  /** At least the plan's concurrency per worker (`connectionsPerWorker(plan)`). */
  readonly maxSockets: number;
  readonly requestTimeoutMs: number;
}

/**
 * A runtime client for load tests. `maxAttempts: 1`: a retried throttle would show up as one slow
 * success instead of the throttle it was, and the retry would add load the plan did not ask for.
 *
 * One SigV4 signer for the client's life: by default the SDK builds a new `SignatureV4` for every
 * request, from a copy of the whole client configuration. This client signs for one service and
 * region, so the first signer serves every request (credentials are still asked of the client's
 * provider at each signature, so refreshed credentials are used).
 */
export function createLoadTestRuntimeClient(options: LoadTestClientOptions): SageMakerRuntimeClient {
  const client = new SageMakerRuntimeClient({
    ...(options.region === undefined ? {} : { region: options.region }),
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(
      loadTestHttpHandlerOptions(options.maxSockets, options.requestTimeoutMs),
    ),
  });
  const makeSigner = client.config.signer;
  let signer: ReturnType<typeof makeSigner> | undefined;
  client.config.signer = (authScheme) =>
    (signer ??= makeSigner(authScheme).catch((error: unknown) => {
      signer = undefined;
      throw error;
    }));
  return client;
}

export interface SageMakerRuntimeTransportOptions {
  readonly client: SageMakerRuntimeClient;
  readonly endpointName: string;
  readonly targetVariant?: string;
  readonly customAttributes?: string;
  readonly inferenceComponentName?: string;
}

interface ServiceErrorShape {
  readonly name: string;
  readonly message: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
  readonly $fault?: 'client' | 'server';
}

function isServiceError(error: unknown): error is ServiceErrorShape {
  return error instanceof Error && '$metadata' in error;
}

/** SageMaker's own refusals and failures under load: capacity, not the request and not the model. */
const THROTTLING_NAMES = new Set([
  'ThrottlingException',
  'ModelNotReadyException',
  'ServiceUnavailable',
  'InternalFailure',
  'InternalDependencyException',
]);
const TIMEOUT_NAMES = new Set(['TimeoutError', 'AbortError', 'RequestTimeout', 'RequestTimeoutException']);

/**
 * InvokeEndpoint's errors as load-test outcomes:
 * - `ModelError`: the container answered 4xx/5xx; its status (`OriginalStatusCode`) and body
 *   (`OriginalMessage`) are kept, with the CloudWatch log stream to look at;
 * - `ThrottlingException` / HTTP 429, `ModelNotReadyException` (model still loading),
 *   `ServiceUnavailable`, `InternalFailure`, `InternalDependencyException` (SageMaker-side 5xx):
 *   throttled, the endpoint could not take the request now;
 * - `ValidationError` and other 4xx from the service (access, signature): client error;
 * - the handler's `TimeoutError` and aborts: timeout; failures without an HTTP answer
 *   (connection refused or reset): client error.
 */
export function classifyInvokeError(error: unknown, signal: AbortSignal): InvokeOutcome {
  if (error instanceof ModelError) {
    const statusCode = error.OriginalStatusCode ?? error.$metadata.httpStatusCode;
    const body = error.OriginalMessage ?? error.message;
    const logs = error.LogStreamArn === undefined ? '' : ` (log stream ${error.LogStreamArn})`;
    return {
      kind: 'model-error',
      ...(statusCode === undefined ? {} : { statusCode }),
      message: `${truncateMessage(body)}${logs}`,
    };
  }
  if (signal.aborted || (error instanceof Error && TIMEOUT_NAMES.has(error.name))) {
    const reason: unknown = signal.reason;
    return {
      kind: 'timeout',
      message: signal.aborted
        ? `aborted (${typeof reason === 'string' ? reason : describeError(reason)})`
        : describeError(error),
    };
  }
  if (isServiceError(error)) {
    const statusCode = error.$metadata?.httpStatusCode;
    const message = `${error.name}: ${truncateMessage(error.message)}`;
    const withStatus = statusCode === undefined ? {} : { statusCode };
    if (THROTTLING_NAMES.has(error.name) || statusCode === 429 || error.$fault === 'server') {
      return { kind: 'throttled', ...withStatus, message };
    }
    return { kind: 'client-error', ...withStatus, message };
  }
  return { kind: 'client-error', message: `request failed: ${describeError(error)}` };
}

const OK: InvokeOutcome = { kind: 'ok' };

type InvokeHandler = (args: { input: InvokeEndpointCommandInput }) => Promise<unknown>;

/**
 * AWS transport: `InvokeEndpoint` on a real-time endpoint. The client is the caller's (built once
 * at module scope with `createLoadTestRuntimeClient`), so the transport has nothing to close.
 *
 * Nothing is built per request but the input: `client.send(command, { abortSignal })` resolves the
 * client's and the command's middleware stacks again on every call (the SDK caches the resolved
 * handler only for calls without options, `cacheMiddleware`), and a command allocates a stack of
 * its own. The handler is resolved once per abort signal instead (the engine passes one per step),
 * exactly as `send` would resolve it, and called with each request's input; concurrent requests
 * share it as they share the SDK's own cached handler under `cacheMiddleware`. Measured: 1.19-1.55×
 * the signed requests per CPU-second of the SDK's defaults (bench/RESULTS.md, "Signed path").
 */
export function createSageMakerRuntimeTransport(options: SageMakerRuntimeTransportOptions): InvokeTransport {
  const { client } = options;
  const fixed = {
    EndpointName: options.endpointName,
    ...(options.targetVariant === undefined ? {} : { TargetVariant: options.targetVariant }),
    ...(options.customAttributes === undefined ? {} : { CustomAttributes: options.customAttributes }),
    ...(options.inferenceComponentName === undefined
      ? {}
      : { InferenceComponentName: options.inferenceComponentName }),
  };
  let resolved: { readonly signal: AbortSignal; readonly handler: InvokeHandler } | undefined;
  const handlerFor = (signal: AbortSignal, input: InvokeEndpointCommandInput): InvokeHandler => {
    if (resolved?.signal !== signal) {
      const handler = new InvokeEndpointCommand(input).resolveMiddleware(
        client.middlewareStack,
        client.config,
        {
          abortSignal: signal,
        },
      );
      resolved = { signal, handler };
    }
    return resolved.handler;
  };
  return {
    async invoke(request, signal) {
      const input: InvokeEndpointCommandInput = {
        ...fixed,
        Body: request.body,
        ContentType: request.contentType,
        ...(request.accept === undefined ? {} : { Accept: request.accept }),
      };
      try {
        await handlerFor(signal, input)({ input });
        return OK;
      } catch (error) {
        return classifyInvokeError(error, signal);
      }
    },
  };
}

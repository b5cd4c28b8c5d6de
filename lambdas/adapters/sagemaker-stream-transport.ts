import { InvokeEndpointWithResponseStreamCommand } from '@aws-sdk/client-sagemaker-runtime';
import type {
  InvokeEndpointWithResponseStreamCommandInput,
  SageMakerRuntimeClient,
} from '@aws-sdk/client-sagemaker-runtime';
import type {
  InvokeOutcome,
  ResponseStreamEvent,
  StreamInvokeTransport,
} from '../../core/load-test/index.js';
import { drainResponseStream } from '../../core/load-test/index.js';
import { classifyInvokeError } from './sagemaker-runtime-transport.js';

export interface SageMakerStreamTransportOptions {
  /** A client built once with `createLoadTestRuntimeClient` (sockets, keep-alive, no retry, one signer). */
  readonly client: SageMakerRuntimeClient;
  readonly endpointName: string;
  /**
   * Time allowed for the whole stream, from the request to its last event. The client's own
   * `requestTimeout` only runs until the response headers (@smithy/node-http-handler clears it when
   * the response arrives), and a streamed body can stall after them.
   */
  readonly requestTimeoutMs: number;
  readonly targetVariant?: string;
  readonly customAttributes?: string;
  readonly inferenceComponentName?: string;
}

function abortReasonText(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string') return reason;
  return reason instanceof Error ? reason.message : 'aborted';
}

/**
 * AWS streaming transport: `InvokeEndpointWithResponseStream` (POST
 * /endpoints/{EndpointName}/invocations-response-stream,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpointWithResponseStream.html)
 * on a real-time endpoint whose container streams. Each `PayloadPart` goes to `onPart` as the SDK
 * decodes it; `drainResponseStream` maps the stream's error events.
 * IAM: the page asks for `sagemaker:InvokeEndpoint`, while the Service Authorization Reference lists
 * `sagemaker:InvokeEndpointWithResponseStream` as an action of its own: the load worker is granted
 * both (INVOKE_ENDPOINT_ACTIONS, infra/constructs/sagemaker-grants.ts).
 *
 * Classification is `InvokeEndpoint`'s (`classifyInvokeError`): a `ModelError` with the container's
 * status and body, throttling, validation, timeouts and aborts; `ModelStreamError` and
 * `InternalStreamFailure` as `drainResponseStream` maps them, whether the service sends them as the
 * stream's events or as the operation's error (both are errors of the operation in the Smithy model).
 *
 * Unlike `createSageMakerRuntimeTransport`, the SDK's handler is not resolved once per step: each
 * request has its own abort signal (the step's, or its own deadline over the whole stream), and the
 * handler is bound to its signal. A streamed request lasts as long as its generation (hundreds of
 * milliseconds to minutes, dozens of parts), so resolving the middleware stack once per request is
 * small next to it; the client (sockets, keep-alive, no retry, one signer) is the tuned one.
 *
 * Settles at once when the step aborts or the deadline passes, even if the SDK's body does not end
 * (the handler destroys the request on abort; a body that ignored it would be left to drain, and its
 * pieces are no longer passed on: `onPart` is never called after the promise settles).
 */
export function createSageMakerStreamTransport(
  options: SageMakerStreamTransportOptions,
): StreamInvokeTransport {
  const { client, requestTimeoutMs } = options;
  const fixed = {
    EndpointName: options.endpointName,
    ...(options.targetVariant === undefined ? {} : { TargetVariant: options.targetVariant }),
    ...(options.customAttributes === undefined ? {} : { CustomAttributes: options.customAttributes }),
    ...(options.inferenceComponentName === undefined
      ? {}
      : { InferenceComponentName: options.inferenceComponentName }),
  };

  return {
    async invokeStream(request, signal, onPart) {
      if (signal.aborted) return classifyInvokeError(new Error(abortReasonText(signal)), signal);
      const input: InvokeEndpointWithResponseStreamCommandInput = {
        ...fixed,
        Body: request.body,
        ContentType: request.contentType,
        ...(request.accept === undefined ? {} : { Accept: request.accept }),
      };

      const own = new AbortController();
      let settled = false;
      const cut = new Promise<InvokeOutcome>((resolve) => {
        own.signal.addEventListener(
          'abort',
          () => {
            resolve(
              signal.aborted
                ? classifyInvokeError(new Error(abortReasonText(signal)), signal)
                : { kind: 'timeout', message: `no complete stream within ${requestTimeoutMs} ms` },
            );
          },
          { once: true },
        );
      });
      const onStepAbort = (): void => {
        own.abort(signal.reason);
      };
      signal.addEventListener('abort', onStepAbort, { once: true });
      const deadline = setTimeout(() => {
        own.abort(`no complete stream within ${requestTimeoutMs} ms`);
      }, requestTimeoutMs);

      // The request inside the iterable: an error the operation answers with before the stream
      // (`ModelStreamError`, `InternalStreamFailure` are in its error list) is read as the stream's.
      async function* events(): AsyncGenerator<ResponseStreamEvent> {
        const output = await client.send(new InvokeEndpointWithResponseStreamCommand(input), {
          abortSignal: own.signal,
        });
        if (output.Body === undefined) {
          throw new Error(
            'InvokeEndpointWithResponseStream answered without a body: expected an event stream of payload parts',
          );
        }
        yield* output.Body;
      }
      const read = drainResponseStream(events(), (bytes) => {
        if (!settled) onPart(bytes);
      }).catch((error: unknown) => classifyInvokeError(error, signal));

      try {
        return await Promise.race([read, cut]);
      } finally {
        settled = true;
        clearTimeout(deadline);
        signal.removeEventListener('abort', onStepAbort);
      }
    },
  };
}

import { describeError } from '../../contracts/index.js';
import { truncateMessage } from '../error-samples.js';
import type { Clock, InvokeOutcome, InvokeRequest } from '../ports.js';
import type { StreamFailure } from './stream-events.js';
import type { StreamEventSink, StreamParser } from './stream-parser.js';
import { TokenTimingRecorder } from './token-timing.js';
import type { RequestTokenTiming } from './token-timing.js';

/**
 * Sends one request whose answer streams (SageMaker `InvokeEndpointWithResponseStream`, or the
 * local model server's chunked `/invocations`). The contract of `InvokeTransport` (ports.ts) holds
 * (classified outcomes, settling on abort and within the request timeout, enough connections),
 * plus:
 * - `onPart` gets each piece of the body as it arrives, in order, synchronously from the transport's
 *   read loop, and never after the returned promise settles: the caller stamps each piece with
 *   its arrival time, so a transport must not buffer pieces;
 * - the promise resolves `ok` when the body ended normally, whether or not the stream inside it
 *   was complete (the parser judges that), and with a classified failure when the request failed
 *   before the stream began or the service ended the stream with an error event (see
 *   `drainResponseStream`).
 */
export interface StreamInvokeTransport {
  invokeStream(
    request: InvokeRequest,
    signal: AbortSignal,
    onPart: (bytes: Uint8Array) => void,
  ): Promise<InvokeOutcome>;
  close?(): Promise<void>;
}

/** One streamed request: how it ended, and what it measured up to then. */
export interface StreamedInvoke {
  readonly outcome: InvokeOutcome;
  readonly timing: RequestTokenTiming;
  /** The failure read from the stream's bytes, when that is what ended the request. */
  readonly streamFailure?: StreamFailure;
}

/**
 * Sends one request through a streaming transport, feeds each piece to the parser and the timing
 * recorder at its arrival time, and returns the outcome with the timing measured up to the end.
 * The first failure in time decides the outcome: one read in the stream (the server's error event,
 * an unreadable event) comes before the transport settles; a transport failure (timeout, a
 * SageMaker stream error) comes before the end-of-body check for a missing terminal event.
 * Never rejects: a transport that throws is a `client-error`, as for `InvokeTransport`.
 * The end-to-end latency runs to the transport's settling: a stream that failed mid-way is still
 * drained (or cut by the transport), and that time is the request's.
 */
export async function invokeStreamed(
  transport: StreamInvokeTransport,
  request: InvokeRequest,
  signal: AbortSignal,
  parser: StreamParser,
  clock: Clock,
): Promise<StreamedInvoke> {
  const recorder = new TokenTimingRecorder(clock.nowUs());
  // Every event read from one piece is stamped with the piece's arrival; a token is recorded
  // without an event object (stream-parser.ts, `read`).
  let atUs = 0;
  let streamFailure: StreamFailure | undefined;
  const sink: StreamEventSink = {
    token(_bytes, textStart, textEnd, special) {
      recorder.recordToken(atUs, textEnd > textStart && !special);
    },
    event(event) {
      recorder.record(atUs, event);
      if (event.kind === 'failure') streamFailure ??= event.failure;
    },
  };

  let transportOutcome: InvokeOutcome;
  try {
    transportOutcome = await transport.invokeStream(request, signal, (bytes) => {
      atUs = clock.nowUs();
      parser.read(bytes, sink);
    });
  } catch (error) {
    transportOutcome = {
      kind: 'client-error',
      message: `the stream transport failed: ${describeError(error)}`,
    };
  }
  // The end-of-body check (a missing terminal event) only counts when the body did end normally.
  if (transportOutcome.kind === 'ok') {
    atUs = clock.nowUs();
    parser.finish(sink);
  }
  const timing = recorder.finish(clock.nowUs());

  const failure = streamFailure;
  if (failure !== undefined) {
    return { outcome: { kind: 'model-error', message: failure.message }, timing, streamFailure: failure };
  }
  return { outcome: transportOutcome, timing };
}

/**
 * The events of SageMaker's `ResponseStream` union as the SDK v3 client hands them over, written
 * structurally so the core needs no SDK import. The Smithy model (aws/api-models-aws,
 * models/sagemaker-runtime/service/2017-05-13/sagemaker-runtime-2017-05-13.json,
 * `com.amazonaws.sagemakerruntime#ResponseStream`) has three members: `PayloadPart` (`Bytes`, a
 * piece of the container's response), `ModelStreamError` (`Message`, `ErrorCode`) and
 * `InternalStreamFailure` (`Message`).
 */
export interface ResponseStreamEvent {
  readonly PayloadPart?: { readonly Bytes?: Uint8Array | undefined } | undefined;
  readonly ModelStreamError?:
    { readonly Message?: string | undefined; readonly ErrorCode?: string | undefined } | undefined;
  readonly InternalStreamFailure?: { readonly Message?: string | undefined } | undefined;
}

/**
 * Reads a SageMaker response stream into `onPart` and says how it ended: the body of a
 * `StreamInvokeTransport` built on `InvokeEndpointWithResponseStream`. The two error members are
 * modeled as errors, and the SDK throws them from the iteration (an `exception` message of the
 * event stream, `getMessageUnmarshaller` in @smithy/core's event-streams) rather than yielding
 * them; both forms are read. Their classes, from the Smithy model's documentation:
 * - `ModelStreamError` `ModelInvocationTimeExceeded` ("the model failed to finish sending the
 *   response within the timeout period allowed"): `timeout`;
 * - `ModelStreamError` `StreamBroken` ("the TCP connection between the client and the model was
 *   reset or closed"): `client-error`, a broken connection as for `InvokeEndpoint`;
 * - `ModelStreamError` with another or no code: `model-error`;
 * - `InternalStreamFailure` ("failed because of an unknown error ... Try your request again"):
 *   `throttled`, the SageMaker-side failure class of `InternalFailure` for `InvokeEndpoint`.
 * Other errors (an abort, a dropped socket) are rethrown for the adapter to classify as it does for
 * `InvokeEndpoint`.
 */
export async function drainResponseStream(
  body: AsyncIterable<ResponseStreamEvent>,
  onPart: (bytes: Uint8Array) => void,
): Promise<InvokeOutcome> {
  try {
    for await (const event of body) {
      if (event.PayloadPart !== undefined) {
        if (event.PayloadPart.Bytes !== undefined) onPart(event.PayloadPart.Bytes);
      } else if (event.ModelStreamError !== undefined) {
        return modelStreamErrorOutcome(event.ModelStreamError.ErrorCode, event.ModelStreamError.Message);
      } else if (event.InternalStreamFailure !== undefined) {
        return internalStreamFailureOutcome(event.InternalStreamFailure.Message);
      }
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'ModelStreamError') {
      return modelStreamErrorOutcome(
        stringMember(error, 'ErrorCode'),
        stringMember(error, 'Message') ?? error.message,
      );
    }
    if (error instanceof Error && error.name === 'InternalStreamFailure') {
      return internalStreamFailureOutcome(stringMember(error, 'Message') ?? error.message);
    }
    throw error;
  }
  return { kind: 'ok' };
}

function modelStreamErrorOutcome(code: string | undefined, message: string | undefined): InvokeOutcome {
  const text = truncateMessage(
    `ModelStreamError${code === undefined ? '' : ` ${code}`}: ${message ?? '(no message)'}`,
  );
  if (code === 'ModelInvocationTimeExceeded') return { kind: 'timeout', message: text };
  if (code === 'StreamBroken') return { kind: 'client-error', message: text };
  return { kind: 'model-error', message: text };
}

function internalStreamFailureOutcome(message: string | undefined): InvokeOutcome {
  return {
    kind: 'throttled',
    message: truncateMessage(`InternalStreamFailure: ${message ?? '(no message)'}`),
  };
}

/** A member of a thrown service exception (the SDK copies the shape's members onto the error). */
function stringMember(error: Error, member: 'ErrorCode' | 'Message'): string | undefined {
  const value: unknown = Reflect.get(error, member);
  return typeof value === 'string' ? value : undefined;
}

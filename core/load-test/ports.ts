/**
 * Ports of the load-test engine. The engine never imports a transport or reads the system clock
 * itself: AWS (`lambdas/adapters/sagemaker-runtime-transport.ts`), local mode
 * (`local/adapters/http-invoke-transport.ts`) and tests (a virtual clock and stub transports) plug
 * in here.
 */

/** One inference request, sent unchanged for every invocation of a load test. */
export interface InvokeRequest {
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly accept?: string;
}

/** How an invocation failed, as counted in a step's `errors`. */
export type InvokeErrorKind = 'model-error' | 'throttled' | 'timeout' | 'client-error';

/**
 * What one invocation gave. Transports classify failures themselves (they know their protocol):
 * - `model-error`: the model container answered 4xx/5xx (SageMaker `ModelError`); `statusCode` is
 *   the container's status and `message` starts with its (truncated) response body.
 * - `throttled`: the service refused or could not serve the request right now (429, 503,
 *   `ModelNotReadyException`, SageMaker-side 5xx): capacity, not a broken model.
 * - `timeout`: no complete answer within the transport's request timeout, or aborted.
 * - `client-error`: the request itself was wrong (`ValidationError`, other 4xx from the service) or
 *   the connection failed on our side.
 */
export type InvokeOutcome =
  | { readonly kind: 'ok' }
  | { readonly kind: InvokeErrorKind; readonly statusCode?: number; readonly message: string };

/**
 * Sends one request. Contract:
 * - resolves with an outcome for every failure it can classify; a rejection is treated by the
 *   engine as a `client-error` (a transport bug must not kill a load test);
 * - settles within its configured request timeout (the engine does not arm a timer per request:
 *   at tens of thousands of requests per second that would cost more than the request);
 * - settles promptly with `timeout` once `signal` aborts (deadline or cancellation);
 * - holds at least as many connections as the plan's concurrency per worker
 *   (`connectionsPerWorker(plan)`), otherwise requests queue inside the client and the queueing
 *   is reported as latency.
 */
export interface InvokeTransport {
  invoke(request: InvokeRequest, signal: AbortSignal): Promise<InvokeOutcome>;
  close?(): Promise<void>;
}

/**
 * Time, as the engine sees it. Latencies use the monotonic `nowUs` (microseconds as a float number:
 * a `bigint` from `process.hrtime.bigint()` allocates on every call, which alone would eat a
 * third of the 200 ns recording budget); the shared start of distributed workers and deadlines are
 * wall-clock `epochMs`.
 */
export interface Clock {
  /** Monotonic time in microseconds (fractions allowed). Only differences are meaningful. */
  nowUs(): number;
  /** Wall-clock time in milliseconds since the Unix epoch. */
  epochMs(): number;
  /**
   * Resolves once `nowUs() >= targetUs` (at once if that is already the case), or as soon as
   * `signal` aborts. Never resolves early otherwise and never rejects.
   */
  sleepUntil(targetUs: number, signal?: AbortSignal): Promise<void>;
}

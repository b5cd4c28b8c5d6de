import type { Client, Dispatcher } from 'undici';
import type { InvokeOutcome, StreamInvokeTransport } from '../../core/load-test/index.js';
import { abortReason, abortWatcher, classifyFailure, classifyStatus } from './http-invoke-transport.js';
import { Connections, dispatchOptionsOf } from './undici-connections.js';
import type { LentRequest } from './undici-connections.js';

/** Bytes of an error body kept for the error sample (as for `createHttpInvokeTransport`). */
const MAX_ERROR_BODY_BYTES = 2048;

export interface HttpStreamTransportOptions {
  /** Origin of the model server, e.g. `http://127.0.0.1:8080`. */
  readonly origin: string;
  /** Connections kept open: at least the plan's concurrency per worker (`connectionsPerWorker`). */
  readonly connections: number;
  /**
   * Time allowed for the whole stream, from the request to the body's last byte (also undici's
   * limit for the headers and for the silence between two pieces of the body).
   */
  readonly requestTimeoutMs: number;
  /** @default '/invocations' (the SageMaker inference container contract) */
  readonly path?: string;
}

/** Why the transport cut a request itself: its stream outlived the request timeout. */
class StreamDeadlineError extends Error {
  override readonly name = 'StreamDeadlineError';
}

/**
 * One streamed request between undici's callbacks: the core handler callbacks (`onConnect` …
 * `onError`), which undici's Request calls directly, where the newer `onRequestStart` … names wrap
 * every request's handler and parse every response's headers into objects. A 2xx
 * body goes to `onPart` piece by piece as the socket delivers it; an error body is kept for the
 * error sample instead.
 */
class StreamInvocation implements LentRequest {
  abort: ((error?: Error) => void) | undefined;
  client: Client | undefined;
  private statusCode = 0;
  private errorBody: Buffer[] | undefined;
  private errorBodyBytes = 0;
  private settled = false;
  private expired: StreamDeadlineError | undefined;
  private readonly deadline: NodeJS.Timeout;

  constructor(
    readonly signal: AbortSignal,
    private readonly requestTimeoutMs: number,
    readonly request: Dispatcher.DispatchOptions,
    private readonly connections: Connections<StreamInvocation>,
    private readonly onPart: (bytes: Uint8Array) => void,
    private readonly resolve: (outcome: InvokeOutcome) => void,
  ) {
    // undici's bodyTimeout bounds each silence, not the whole body: a server that streams a token
    // every second would otherwise hold the request for ever.
    // A request handed to undici but not yet connected is aborted in `onConnect`: settling it here
    // would give its connection to the next request while undici still holds this one on it.
    this.deadline = setTimeout(() => {
      this.expired = new StreamDeadlineError(`no complete stream within ${requestTimeoutMs} ms`);
      if (this.abort !== undefined) this.abort(this.expired);
      else if (this.client === undefined) this.finish(this.failure(this.expired));
    }, requestTimeoutMs);
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abort = abort;
    if (this.signal.aborted) abort(abortReason(this.signal));
    else if (this.expired !== undefined) abort(this.expired);
  }

  onHeaders(statusCode: number): boolean {
    this.statusCode = statusCode;
    if (statusCode < 200 || statusCode >= 300) this.errorBody = [];
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.errorBody === undefined) {
      if (!this.settled) this.onPart(chunk);
    } else if (this.errorBodyBytes < MAX_ERROR_BODY_BYTES) {
      this.errorBody.push(chunk);
      this.errorBodyBytes += chunk.byteLength;
    }
    return true;
  }

  onComplete(): void {
    if (this.errorBody === undefined) {
      this.finish({ kind: 'ok' });
      return;
    }
    const body = Buffer.concat(this.errorBody).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8');
    this.finish(classifyStatus(this.statusCode, body));
  }

  onError(error: Error): void {
    this.finish(this.failure(error));
  }

  finish(outcome: InvokeOutcome): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    this.connections.release(this);
    this.resolve(outcome);
  }

  private failure(error: Error): InvokeOutcome {
    if (error instanceof StreamDeadlineError && !this.signal.aborted) {
      return { kind: 'timeout', message: error.message };
    }
    return classifyFailure(error, this.signal, this.requestTimeoutMs);
  }
}

/**
 * Local-mode streaming transport: HTTP POST to a loopback model server that streams its answer
 * (chunked `/invocations`), each piece of the body handed to `onPart` as undici reads it from the
 * socket, over `connections` keep-alive connections lent one request at a time (the `Connections`
 * of undici-connections.ts). Outcomes are `createHttpInvokeTransport`'s: a 4xx/5xx is the
 * model's answer (429 and 503 throttled) with its body, timeouts and aborts are timeouts, a refused
 * or dropped connection is a client error. A body cut mid-stream (the socket closed before the
 * chunked body's end) is such a client error; a body that ends normally but without the format's
 * terminal event is `ok` here, and the parser calls it `truncated`.
 */
export function createHttpStreamTransport(
  options: HttpStreamTransportOptions,
): StreamInvokeTransport & { close(): Promise<void> } {
  const connections = new Connections<StreamInvocation>(options);
  const path = options.path ?? '/invocations';
  const prepare = dispatchOptionsOf(path);
  const watch = abortWatcher(connections, options.requestTimeoutMs);

  return {
    invokeStream(request, signal, onPart) {
      if (signal.aborted) {
        return Promise.resolve(classifyFailure(abortReason(signal), signal, options.requestTimeoutMs));
      }
      const dispatchOptions = prepare(request);
      watch(signal);
      return new Promise<InvokeOutcome>((resolve) => {
        connections.send(
          new StreamInvocation(
            signal,
            options.requestTimeoutMs,
            dispatchOptions,
            connections,
            onPart,
            resolve,
          ),
        );
      });
    },
    close() {
      return connections.close();
    },
  };
}

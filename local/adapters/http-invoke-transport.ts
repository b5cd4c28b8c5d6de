import { Client } from 'undici';
import type { Dispatcher } from 'undici';
import { describeError } from '../../handlers/contracts/errors.js';
import { truncateMessage } from '../../handlers/load-test/error-samples.js';
import type { InvokeOutcome, InvokeRequest, InvokeTransport } from '../../handlers/load-test/ports.js';

/** Bytes of an error body kept for the error sample. */
const MAX_ERROR_BODY_BYTES = 2048;

export interface HttpInvokeTransportOptions {
  /** Origin of the model server, e.g. `http://127.0.0.1:8080`. */
  readonly origin: string;
  /** Connections kept open: at least the plan's concurrency per worker (`connectionsPerWorker`). */
  readonly connections: number;
  /** Time allowed for the response headers, and then for the body. */
  readonly requestTimeoutMs: number;
  /** @default '/invocations' (the SageMaker inference container contract) */
  readonly path?: string;
}

const OK: InvokeOutcome = { kind: 'ok' };

/**
 * The model server is the container itself (no SageMaker front end), so every 4xx/5xx is the
 * model's answer, except the two ways a server says "not now": 429 and 503.
 */
export function classifyStatus(statusCode: number, body: string): InvokeOutcome {
  const message = `HTTP ${statusCode}: ${truncateMessage(body.trim() === '' ? '(empty body)' : body)}`;
  if (statusCode === 429 || statusCode === 503) return { kind: 'throttled', statusCode, message };
  return { kind: 'model-error', statusCode, message };
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

export function classifyFailure(
  error: unknown,
  signal: AbortSignal,
  requestTimeoutMs: number,
): InvokeOutcome {
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    return {
      kind: 'timeout',
      message: `aborted (${typeof reason === 'string' ? reason : describeError(reason)})`,
    };
  }
  const code = errorCode(error);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return { kind: 'timeout', message: `no complete response within ${requestTimeoutMs} ms (${code})` };
  }
  return {
    kind: 'client-error',
    message: `request failed: ${describeError(error)}${code === undefined ? '' : ` (${code})`}`,
  };
}

export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : 'aborted');
}

/**
 * One request's state between undici's callbacks, and the promise it settles. It implements
 * undici's core handler callbacks (`onConnect` … `onError`), the ones its Request calls: undici
 * marks them deprecated in favour of `onRequestStart` … `onResponseError`, but it implements those
 * by wrapping each request's handler in an UnwrapHandler and an UnwrapController and turning the
 * raw headers and trailers of every response into objects (`parseHeaders`), which at tens of
 * thousands of requests per second is a good share of the transport's allocation (profiled in
 * bench/RESULTS.md, run D). Nothing here reads a response header but the status.
 */
class Invocation implements LentRequest {
  abort: ((error?: Error) => void) | undefined;
  /** The connection lent to this request, once it has one. */
  client: Client | undefined;
  private statusCode = 0;
  private errorBody: Buffer[] | undefined;
  private errorBodyBytes = 0;

  constructor(
    readonly signal: AbortSignal,
    private readonly requestTimeoutMs: number,
    readonly request: Dispatcher.DispatchOptions,
    private readonly connections: Connections,
    private readonly resolve: (outcome: InvokeOutcome) => void,
  ) {}

  onConnect(abort: (error?: Error) => void): void {
    this.abort = abort;
    if (this.signal.aborted) abort(abortReason(this.signal));
  }

  onHeaders(statusCode: number): boolean {
    this.statusCode = statusCode;
    if (statusCode < 200 || statusCode >= 300) this.errorBody = [];
    return true;
  }

  onData(chunk: Buffer): boolean {
    // A successful body is read to its last byte (latency runs to it) and dropped; an error body
    // is kept up to MAX_ERROR_BODY_BYTES for the error sample.
    if (this.errorBody !== undefined && this.errorBodyBytes < MAX_ERROR_BODY_BYTES) {
      this.errorBody.push(chunk);
      this.errorBodyBytes += chunk.byteLength;
    }
    return true;
  }

  onComplete(): void {
    if (this.errorBody === undefined) {
      this.finish(OK);
      return;
    }
    const body = Buffer.concat(this.errorBody).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8');
    this.finish(classifyStatus(this.statusCode, body));
  }

  onError(error: Error): void {
    this.finish(classifyFailure(error, this.signal, this.requestTimeoutMs));
  }

  finish(outcome: InvokeOutcome): void {
    this.connections.release(this);
    this.resolve(outcome);
  }
}

/** What a connection is lent to: one request, its undici handler and how it settles. */
export interface LentRequest extends Dispatcher.DispatchHandler {
  readonly signal: AbortSignal;
  readonly request: Dispatcher.DispatchOptions;
  /** The connection lent to this request, once it has one. */
  client: Client | undefined;
  /** undici's abort for the request, once it is sent. */
  abort: ((error?: Error) => void) | undefined;
  /** Settles the request and gives its connection back (`Connections.release`), once. */
  finish(outcome: InvokeOutcome): void;
}

/**
 * The transport's connections: one undici Client (one keep-alive socket) each, lent to one request
 * at a time, and requests waiting for one when more are in flight than there are connections
 * (the engine avoids that: `connectionsPerWorker`). A Pool does the same lending, but finds a free
 * client by scanning them all and emits a 'drain' event per response; a stack of idle clients is
 * one pop and one push.
 */
export class Connections<T extends LentRequest = LentRequest> {
  readonly inFlight = new Set<T>();
  private readonly clients: Client[];
  private readonly idle: Client[];
  private readonly waiting: T[] = [];

  constructor(options: Pick<HttpInvokeTransportOptions, 'origin' | 'connections' | 'requestTimeoutMs'>) {
    this.clients = Array.from(
      { length: Math.max(1, options.connections) },
      () =>
        new Client(options.origin, {
          headersTimeout: options.requestTimeoutMs,
          bodyTimeout: options.requestTimeoutMs,
          // Never more than one request on a connection (see `send`): a pipelining depth of 2 only
          // makes undici resume the client as soon as a response ends, where at depth 1 it waits a
          // turn of the event loop (setImmediate) on every response before the socket is reused.
          pipelining: 2,
        }),
    );
    this.idle = [...this.clients];
  }

  send(invocation: T): void {
    this.inFlight.add(invocation);
    const client = this.idle.pop();
    if (client === undefined) this.waiting.push(invocation);
    else this.dispatch(client, invocation);
  }

  /** Called once per invocation, when it settles: its connection goes to the next in line. */
  release(invocation: T): void {
    this.inFlight.delete(invocation);
    const client = invocation.client;
    if (client === undefined) {
      const index = this.waiting.indexOf(invocation);
      if (index >= 0) this.waiting.splice(index, 1);
      return;
    }
    const next = this.waiting.shift();
    if (next === undefined) this.idle.push(client);
    else this.dispatch(client, next);
  }

  /** Aborts every request of `signal`: those sent through undici, those waiting at once. */
  abortAll(signal: AbortSignal, requestTimeoutMs: number): void {
    for (const invocation of this.inFlight) {
      if (invocation.signal !== signal) continue;
      if (invocation.client === undefined)
        invocation.finish(classifyFailure(abortReason(signal), signal, requestTimeoutMs));
      else invocation.abort?.(abortReason(signal));
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }

  private dispatch(client: Client, invocation: T): void {
    invocation.client = client;
    client.dispatch(invocation.request, invocation);
  }
}

/**
 * The POST of a request, built once per request object (the engine reuses them): a flat header
 * list and a Buffer body are undici's fast paths.
 */
export function dispatchOptionsOf(path: string): (request: InvokeRequest) => Dispatcher.DispatchOptions {
  const prepared = new WeakMap<InvokeRequest, Dispatcher.DispatchOptions>();
  return (request) => {
    let ready = prepared.get(request);
    if (ready === undefined) {
      ready = {
        method: 'POST',
        path,
        headers: [
          'content-type',
          request.contentType,
          ...(request.accept === undefined ? [] : ['accept', request.accept]),
        ],
        body: Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength),
      };
      prepared.set(request, ready);
    }
    return ready;
  };
}

/** One abort listener per signal (the engine shares one per step), not one per request. */
export function abortWatcher(
  connections: { abortAll(signal: AbortSignal, requestTimeoutMs: number): void },
  requestTimeoutMs: number,
): (signal: AbortSignal) => void {
  const watched = new WeakSet<AbortSignal>();
  return (signal) => {
    if (watched.has(signal)) return;
    watched.add(signal);
    signal.addEventListener(
      'abort',
      () => {
        connections.abortAll(signal, requestTimeoutMs);
      },
      { once: true },
    );
  };
}

/**
 * Local-mode transport: HTTP POST to a loopback model server's `/invocations` over `connections`
 * keep-alive connections (undici Clients), so no request waits for a socket. It uses
 * undici's dispatch API rather than `request()`: no response stream per request, which at tens of
 * thousands of requests per second is most of a load generator's own cost.
 */
export function createHttpInvokeTransport(options: HttpInvokeTransportOptions): InvokeTransport & {
  close(): Promise<void>;
} {
  const connections = new Connections(options);
  const path = options.path ?? '/invocations';
  const prepare = dispatchOptionsOf(path);
  const watch = abortWatcher(connections, options.requestTimeoutMs);

  return {
    invoke(request, signal) {
      if (signal.aborted)
        return Promise.resolve(classifyFailure(abortReason(signal), signal, options.requestTimeoutMs));
      const dispatchOptions = prepare(request);
      watch(signal);
      return new Promise<InvokeOutcome>((resolve) => {
        connections.send(
          new Invocation(signal, options.requestTimeoutMs, dispatchOptions, connections, resolve),
        );
      });
    },
    close() {
      return connections.close();
    },
  };
}

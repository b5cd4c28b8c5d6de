import { describeError } from '../../core/contracts/index.js';
import { truncateMessage } from '../../core/load-test/index.js';
import type { InvokeOutcome, InvokeRequest, InvokeTransport } from '../../core/load-test/index.js';
import { READ_BUFFER_BYTES, RawHttpConnection, addressOf } from './raw-http-connection.js';
import type { RawExchange } from './raw-http-connection.js';

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
/** A signal that never aborts (a slot always has its request's signal while it can fail). */
const NOT_ABORTED = new AbortController().signal;

/**
 * The model server is the container itself (no SageMaker front end), so every 4xx/5xx is the
 * model's answer, except the two ways a server says "not now": 429 and 503.
 */
export function classifyStatus(statusCode: number, body: string): InvokeOutcome {
  const message = `HTTP ${statusCode}: ${truncateMessage(body.trim() === '' ? '(empty body)' : body)}`;
  if (statusCode === 429 || statusCode === 503) return { kind: 'throttled', statusCode, message };
  return { kind: 'model-error', statusCode, message };
}

/** The codes of a response that took too long (undici's, which raw-http-connection.ts keeps). */
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
 * One connection and the state of the request it carries, reused from request to request: a
 * request costs its promise and nothing else here.
 */
class InvokeSlot implements RawExchange {
  readonly connection: RawHttpConnection;
  /** The signal of the request in progress, if any (for `InvokeConnections.abortAll`). */
  signal: AbortSignal | undefined;
  private resolve: ((outcome: InvokeOutcome) => void) | undefined;
  private statusCode = 0;
  private errorBody: Buffer[] | undefined;
  private errorBodyBytes = 0;

  constructor(
    connection: RawHttpConnection,
    private readonly connections: InvokeConnections,
    private readonly requestTimeoutMs: number,
  ) {
    this.connection = connection;
  }

  start(bytes: Buffer, signal: AbortSignal, resolve: (outcome: InvokeOutcome) => void): void {
    this.signal = signal;
    this.resolve = resolve;
    this.errorBody = undefined;
    this.errorBodyBytes = 0;
    this.connection.send(bytes, this);
  }

  onStatus(statusCode: number): void {
    this.statusCode = statusCode;
    if (statusCode < 200 || statusCode >= 300) this.errorBody = [];
  }

  onBody(buffer: Uint8Array, start: number, end: number): void {
    // A successful body is read to its last byte (latency runs to it) and dropped; an error body
    // is kept (copied: the piece lies in the connection's read buffer) up to MAX_ERROR_BODY_BYTES
    // for the error sample.
    if (this.errorBody !== undefined && this.errorBodyBytes < MAX_ERROR_BODY_BYTES) {
      this.errorBody.push(Buffer.from(buffer.subarray(start, end)));
      this.errorBodyBytes += end - start;
    }
  }

  onComplete(): void {
    if (this.errorBody === undefined) {
      this.settle(OK);
      return;
    }
    const body = Buffer.concat(this.errorBody).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8');
    this.settle(classifyStatus(this.statusCode, body));
  }

  onError(error: Error): void {
    this.settle(classifyFailure(error, this.signal ?? NOT_ABORTED, this.requestTimeoutMs));
  }

  /** Gives the connection back (perhaps to a waiting request, which reuses this slot) and settles. */
  private settle(outcome: InvokeOutcome): void {
    const resolve = this.resolve;
    this.resolve = undefined;
    this.signal = undefined;
    this.connections.release(this);
    resolve?.(outcome);
  }
}

/** A request waiting for a connection: more are in flight than there are connections. */
interface WaitingRequest {
  readonly bytes: Buffer;
  readonly signal: AbortSignal;
  readonly resolve: (outcome: InvokeOutcome) => void;
}

/**
 * The transport's connections, lent to one request at a time from a stack of idle ones, and the
 * requests waiting for one when more are in flight than there are connections (the engine avoids
 * that: `connectionsPerWorker`).
 */
class InvokeConnections {
  private readonly slots: InvokeSlot[];
  private readonly idle: InvokeSlot[];
  private readonly waiting: WaitingRequest[] = [];
  private closing: (() => void) | undefined;
  /** Set by the first `close()`, which every later call returns. */
  private closed: Promise<void> | undefined;

  constructor(options: HttpInvokeTransportOptions) {
    const address = addressOf(options.origin);
    const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    this.slots = Array.from(
      { length: Math.max(1, options.connections) },
      () =>
        new InvokeSlot(
          new RawHttpConnection(address, options.requestTimeoutMs, readBuffer),
          this,
          options.requestTimeoutMs,
        ),
    );
    this.idle = [...this.slots];
  }

  send(bytes: Buffer, signal: AbortSignal, resolve: (outcome: InvokeOutcome) => void): void {
    if (this.closed !== undefined) {
      resolve({ kind: 'client-error', message: 'request failed: the local HTTP transport is closed' });
      return;
    }
    const slot = this.idle.pop();
    if (slot === undefined) this.waiting.push({ bytes, signal, resolve });
    else slot.start(bytes, signal, resolve);
  }

  /** Called once per request, when it settles: its connection goes to the next in line. */
  release(slot: InvokeSlot): void {
    const next = this.waiting.shift();
    if (next !== undefined) {
      slot.start(next.bytes, next.signal, next.resolve);
      return;
    }
    this.idle.push(slot);
    if (this.closing !== undefined && this.idle.length === this.slots.length) this.closing();
  }

  /** Aborts every request of `signal`: those waiting first (none of them is sent), then those sent. */
  abortAll(signal: AbortSignal, requestTimeoutMs: number): void {
    const reason = abortReason(signal);
    for (let index = this.waiting.length - 1; index >= 0; index--) {
      const request = this.waiting[index];
      if (request?.signal !== signal) continue;
      this.waiting.splice(index, 1);
      request.resolve(classifyFailure(reason, signal, requestTimeoutMs));
    }
    for (const slot of this.slots) if (slot.signal === signal) slot.connection.abort(reason);
  }

  /** Lets the requests in progress finish (as undici's `close` does), then closes every socket. */
  close(): Promise<void> {
    this.closed ??= new Promise((resolve) => {
      this.closing = () => {
        this.closing = undefined;
        for (const slot of this.slots)
          slot.connection.destroy(new Error('the local HTTP transport is closed'));
        resolve();
      };
      if (this.idle.length === this.slots.length) this.closing();
    });
    return this.closed;
  }
}

/** The characters of an HTTP field value: visible ASCII, obs-text, spaces and tabs (RFC 9110 §5.5). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * The bytes of a request's POST (head and body, one Buffer, written as is), built once per request
 * object (the engine sends the same one for a whole load test); a content type or accept value
 * that is not a valid header value is refused, so nothing is sent with it.
 */
export function requestBytesOf(
  path: string,
  authority: string,
): (request: InvokeRequest) => Buffer | InvokeOutcome {
  const prepared = new WeakMap<InvokeRequest, Buffer | InvokeOutcome>();
  return (request) => {
    let ready = prepared.get(request);
    if (ready === undefined) {
      ready = build(path, authority, request);
      prepared.set(request, ready);
    }
    return ready;
  };
}

function build(path: string, authority: string, request: InvokeRequest): Buffer | InvokeOutcome {
  const headers: [string, string | undefined][] = [
    ['content-type', request.contentType],
    ['accept', request.accept],
  ];
  let head = `POST ${path} HTTP/1.1\r\nhost: ${authority}\r\n`;
  for (const [name, value] of headers) {
    if (value === undefined) continue;
    if (!FIELD_VALUE.test(value)) {
      return {
        kind: 'client-error',
        message: `request failed: the ${name} ${JSON.stringify(value)} is not a valid HTTP header value: expected visible ASCII characters, spaces and tabs (RFC 9110 section 5.5); fix the request's ${name === 'accept' ? 'accept' : 'contentType'}`,
      };
    }
    head += `${name}: ${value}\r\n`;
  }
  head += `content-length: ${request.body.byteLength}\r\n\r\n`;
  const headBytes = Buffer.from(head, 'latin1');
  return Buffer.concat([headBytes, request.body], headBytes.byteLength + request.body.byteLength);
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
 * keep-alive connections, so no request waits for a socket. Each connection is a minimal HTTP/1.1
 * client over `node:net` (`RawHttpConnection`) writing the request's bytes, built once; undici's
 * per-request work was most of the gap to autocannon on loopback (bench/RESULTS.md
 * runs D to F).
 */
export function createHttpInvokeTransport(options: HttpInvokeTransportOptions): InvokeTransport & {
  close(): Promise<void>;
} {
  const connections = new InvokeConnections(options);
  const path = options.path ?? '/invocations';
  const prepare = requestBytesOf(path, new URL(options.origin).host);
  const watch = abortWatcher(connections, options.requestTimeoutMs);

  return {
    invoke(request, signal) {
      if (signal.aborted)
        return Promise.resolve(classifyFailure(abortReason(signal), signal, options.requestTimeoutMs));
      const bytes = prepare(request);
      if (!Buffer.isBuffer(bytes)) return Promise.resolve(bytes);
      watch(signal);
      return new Promise<InvokeOutcome>((resolve) => {
        connections.send(bytes, signal, resolve);
      });
    },
    close() {
      return connections.close();
    },
  };
}

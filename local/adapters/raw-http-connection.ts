import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { ResponseParser } from './http-response-parser.js';

/**
 * What a connection reports about the one exchange it carries. Each exchange gets `onStatus`
 * once (its final status: 1xx responses are skipped), then `onBody` for each piece of the body,
 * then exactly one of `onComplete` or `onError`; `onError` may also come before any status.
 */
export interface RawExchange {
  onStatus(statusCode: number): void;
  /** A piece of the body, `buffer[start, end)` (framing removed); valid only during the call. */
  onBody(buffer: Uint8Array, start: number, end: number): void;
  onComplete(): void;
  onError(error: Error): void;
}

/**
 * The connection failed under a request: the server closed it or reset it before the response's
 * end. Named and coded as undici names the same failure, so the error messages the engine records
 * for a run did not change with the client (bench/RESULTS.md, run F).
 */
export class SocketError extends Error {
  override readonly name = 'SocketError';
  readonly code = 'UND_ERR_SOCKET';
}

/**
 * No response headers within the request timeout of the request (`UND_ERR_HEADERS_TIMEOUT`), or a
 * body silent for that long (`UND_ERR_BODY_TIMEOUT`): undici's codes, for the same reason.
 */
export class ResponseTimeoutError extends Error {
  override readonly name = 'ResponseTimeoutError';
  constructor(
    message: string,
    readonly code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT',
  ) {
    super(message);
  }
}

/** Size of a read from a socket (a larger response is read in several). */
export const READ_BUFFER_BYTES = 64 * 1024;

/** Where a connection goes: a host name or IP address and a TCP port. */
export interface RawHttpAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Reads `origin` (`http://host:port`) into an address. Only plain HTTP: local mode talks to model
 * servers on loopback.
 */
export function addressOf(origin: string): RawHttpAddress {
  const url = new URL(origin);
  // Port 0 is no server's port (net.connect would throw on it at the first request).
  if (url.protocol !== 'http:' || url.port === '0') {
    throw new Error(
      `The local HTTP transport got origin ${origin}: expected http://host:port with a port from 1 to 65535 (local model servers listen on plain HTTP); give the model server's http:// URL`,
    );
  }
  // An IPv6 host comes bracketed in a URL ("[::1]") and bare in net.connect.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: url.port === '' ? 80 : Number(url.port) };
}

/**
 * One HTTP/1.1 keep-alive connection over `node:net` carrying one exchange at a time (never
 * pipelined: whoever lends it waits for `onComplete`/`onError` before the next `send`). It does
 * for the local transport what undici's Client did, with none of its per-request machinery
 * (request object, header validation and string building, writev, header Buffers, keep-alive
 * timer, idle-socket check): the caller hands it the request's bytes, built once.
 *
 * - The socket opens on the first `send` and again after the server closed it (idle keep-alive
 *   timeout, `Connection: close`, an HTTP/1.0 answer): a request is written only to a socket not
 *   known to be closed, so a server closing an idle connection costs a reconnect, not an error.
 * - A connection that ends or fails under a request fails that request (a body that runs to the
 *   connection's end, with neither length nor chunked framing, completes there instead), and is
 *   dropped: it is never reused after an error, a timeout or an abort, since a late response
 *   would be read as the next request's.
 * - One timer per connection, refreshed (not re-created) when a request is written and when a
 *   piece of a response arrives without ending it: it fires `timeoutMs` after the last activity,
 *   which is undici's headers timeout, and then its body timeout (the silence between pieces).
 * - Responses are parsed where they lie in the read buffer (`ResponseParser`, no allocation).
 */
export class RawHttpConnection {
  private socket: Socket | undefined;
  private parser: ResponseParser | undefined;
  private exchange: RawExchange | undefined;
  private headersSeen = false;
  private keepAlive = true;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly address: RawHttpAddress,
    private readonly timeoutMs: number,
    /** Where the socket's reads land: the transport shares one among its connections. */
    private readonly readBuffer: Buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES),
  ) {}

  /** Writes `bytes` (a whole request) and reports its response to `exchange`. */
  send(bytes: Buffer, exchange: RawExchange): void {
    this.exchange = exchange;
    this.headersSeen = false;
    (this.socket ?? this.open()).write(bytes);
    this.parser?.expectResponse();
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.onTimer();
      }, this.timeoutMs);
      // The socket keeps the process alive while a request is out; an idle connection must not.
      this.timer.unref();
    } else this.timer.refresh();
  }

  /** Ends the exchange in progress with `reason` (and drops the connection), if there is one. */
  abort(reason: Error): void {
    if (this.exchange !== undefined) this.fail(reason);
  }

  /** Drops the connection; an exchange in progress fails with `reason`. */
  destroy(reason: Error): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.exchange !== undefined) this.fail(reason);
    else this.drop();
  }

  private open(): Socket {
    // No Nagle delay: each request is one write, wanted on the wire at once (undici does the same).
    const socket = connect({
      host: this.address.host,
      port: this.address.port,
      noDelay: true,
      // Reads land in the transport's one buffer and go straight to the parser: no Buffer per
      // read and no stream 'data' event. Safe to share: a read is consumed before the next one.
      onread: {
        buffer: this.readBuffer,
        callback: (length) => {
          if (this.socket === socket) this.onData(length);
          return true;
        },
      },
    });
    // Callbacks of a dropped socket's parser (the rest of a read being parsed) are ignored.
    const parser: ResponseParser = new ResponseParser({
      onHead: (statusCode, keepAlive) => {
        if (this.parser === parser) this.onHead(statusCode, keepAlive);
      },
      onBody: (buffer, start, end) => {
        if (this.parser === parser) this.exchange?.onBody(buffer, start, end);
      },
      onEnd: () => {
        if (this.parser === parser) this.onResponseEnd();
      },
    });
    socket.on('end', () => {
      if (this.socket === socket) this.onEnd();
    });
    socket.on('error', (error) => {
      if (this.socket === socket) this.onClosed(error);
    });
    socket.on('close', () => {
      if (this.socket === socket) this.onClosed(new SocketError('closed'));
    });
    this.socket = socket;
    this.parser = parser;
    return socket;
  }

  private onData(length: number): void {
    const error = this.parser?.execute(this.readBuffer, 0, length);
    if (error !== undefined) {
      this.onClosed(error);
      return;
    }
    // A response still in progress after this piece: the next piece gets the full timeout.
    if (this.exchange !== undefined && this.headersSeen) this.timer?.refresh();
  }

  private onHead(statusCode: number, keepAlive: boolean): void {
    this.headersSeen = true;
    this.keepAlive = keepAlive;
    this.exchange?.onStatus(statusCode);
  }

  private onResponseEnd(): void {
    const exchange = this.exchange;
    if (exchange === undefined) return;
    this.exchange = undefined;
    // `Connection: close` (or HTTP/1.0): the next request opens a new connection.
    if (!this.keepAlive) this.drop();
    exchange.onComplete();
  }

  /** The server ended its side: a body delimited by the connection's end completes here. */
  private onEnd(): void {
    if (this.exchange !== undefined && this.headersSeen) this.parser?.finish();
    this.onClosed(new SocketError('other side closed'));
  }

  private onClosed(error: Error): void {
    if (this.exchange !== undefined) this.fail(error);
    else this.drop();
  }

  private onTimer(): void {
    if (this.exchange === undefined) return;
    this.fail(
      this.headersSeen
        ? new ResponseTimeoutError(`body silent for ${this.timeoutMs} ms`, 'UND_ERR_BODY_TIMEOUT')
        : new ResponseTimeoutError(
            `no response headers within ${this.timeoutMs} ms`,
            'UND_ERR_HEADERS_TIMEOUT',
          ),
    );
  }

  private fail(error: Error): void {
    const exchange = this.exchange;
    this.exchange = undefined;
    this.drop();
    exchange?.onError(error);
  }

  private drop(): void {
    const socket = this.socket;
    this.socket = undefined;
    this.parser = undefined;
    socket?.destroy();
  }
}

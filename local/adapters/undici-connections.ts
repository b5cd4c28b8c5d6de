import { Client } from 'undici';
import type { Dispatcher } from 'undici';
import type { InvokeOutcome, InvokeRequest } from '../../core/load-test/index.js';
import { abortReason, classifyFailure } from './http-invoke-transport.js';
import type { HttpInvokeTransportOptions } from './http-invoke-transport.js';

/*
 * The undici connections of the local streaming transport (http-stream-transport.ts). The
 * non-streaming transport left undici for a client of its own (raw-http-connection.ts, decision
 * 34); a streamed request costs far more than undici's per-request work, so streaming stays here.
 */

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

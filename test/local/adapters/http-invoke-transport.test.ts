import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpInvokeTransport } from '../../../local/adapters/http-invoke-transport.js';
import type { InvokeRequest } from '../../../core/load-test/ports.js';

interface Received {
  method: string | undefined;
  url: string | undefined;
  contentType: string | undefined;
  accept: string | undefined;
  body: string;
}

/** A loopback model server whose answer is chosen by the request body. */
function startServer(): Promise<{
  server: Server;
  origin: string;
  received: Received[];
  waiting: ServerResponse[];
}> {
  const received: Received[] = [];
  const waiting: ServerResponse[] = [];
  const handle = (request: IncomingMessage, response: ServerResponse, body: string): void => {
    received.push({
      method: request.method,
      url: request.url,
      contentType: request.headers['content-type'],
      accept: request.headers.accept,
      body,
    });
    if (body === 'ok') response.end('{"prediction":[0.1,0.9]}');
    else if (body.startsWith('status:')) {
      const status = Number(body.slice('status:'.length, 'status:'.length + 3));
      response.writeHead(status).end(body.slice('status:'.length + 4));
    } else if (body === 'hang') {
      // never answered: the client's timeout or abort must end it
    } else if (body === 'gather') {
      // answered only once 8 of them are in flight at the same time
      waiting.push(response);
      if (waiting.length === 8) for (const held of waiting.splice(0)) held.end('ok');
    } else response.writeHead(400).end('unknown test instruction');
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      handle(request, response, Buffer.concat(chunks).toString('utf8'));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}`, received, waiting });
    });
  });
}

function requestOf(body: string, accept?: string): InvokeRequest {
  return {
    body: new TextEncoder().encode(body),
    contentType: 'application/json',
    ...(accept === undefined ? {} : { accept }),
  };
}

describe('HTTP invoke transport', () => {
  let fixture: Awaited<ReturnType<typeof startServer>>;
  let transport: ReturnType<typeof createHttpInvokeTransport>;
  const never = new AbortController().signal;

  beforeAll(async () => {
    fixture = await startServer();
    transport = createHttpInvokeTransport({ origin: fixture.origin, connections: 8, requestTimeoutMs: 300 });
  });

  afterAll(async () => {
    await transport.close();
    fixture.server.closeAllConnections();
    await new Promise((resolve) => fixture.server.close(resolve));
  });

  it('POSTs the body with its content type and accept header to /invocations', async () => {
    // Act
    const outcome = await transport.invoke(requestOf('ok', 'application/json'), never);

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(fixture.received.at(-1)).toEqual({
      method: 'POST',
      url: '/invocations',
      contentType: 'application/json',
      accept: 'application/json',
      body: 'ok',
    });
  });

  it('reports a 5xx from the model as a model error with its status and truncated body', async () => {
    // Act
    const outcome = await transport.invoke(requestOf(`status:500 ${'e'.repeat(400)}`), never);

    // Assert
    expect(outcome).toEqual({
      kind: 'model-error',
      statusCode: 500,
      message: `HTTP 500: ${'e'.repeat(300)}… (100 more characters)`,
    });
  });

  it('reports a 4xx from the model as a model error', async () => {
    expect(await transport.invoke(requestOf('status:415 unsupported content type'), never)).toEqual({
      kind: 'model-error',
      statusCode: 415,
      message: 'HTTP 415: unsupported content type',
    });
  });

  it('reports 429 and 503 as throttling', async () => {
    // Act
    const outcomes = await Promise.all([
      transport.invoke(requestOf('status:429 slow down'), never),
      transport.invoke(requestOf('status:503 '), never),
    ]);

    // Assert
    expect(outcomes).toEqual([
      { kind: 'throttled', statusCode: 429, message: 'HTTP 429: slow down' },
      { kind: 'throttled', statusCode: 503, message: 'HTTP 503: (empty body)' },
    ]);
  });

  it('reports a server that does not answer within the request timeout as a timeout', async () => {
    expect(await transport.invoke(requestOf('hang'), never)).toEqual({
      kind: 'timeout',
      message: 'no complete response within 300 ms (UND_ERR_HEADERS_TIMEOUT)',
    });
  });

  it('reports an aborted request as a timeout with the reason', async () => {
    // Arrange
    const abort = new AbortController();
    setTimeout(() => {
      abort.abort('deadline');
    }, 20);

    // Act
    const outcome = await transport.invoke(requestOf('hang'), abort.signal);

    // Assert
    expect(outcome).toEqual({ kind: 'timeout', message: 'aborted (deadline)' });
  });

  it('reports a refused connection as a client error', async () => {
    // Arrange: a port nothing listens on any more.
    const closed = await startServer();
    closed.server.close();
    const orphan = createHttpInvokeTransport({
      origin: closed.origin,
      connections: 1,
      requestTimeoutMs: 300,
    });

    // Act
    const outcome = await orphan.invoke(requestOf('ok'), never);
    await orphan.close();

    // Assert
    expect(outcome.kind).toBe('client-error');
    expect(outcome.kind === 'ok' ? '' : outcome.message).toMatch(/^request failed: .*ECONNREFUSED/);
  });

  it('queues requests beyond its connections and sends each once a connection is free', async () => {
    // Arrange
    const single = createHttpInvokeTransport({
      origin: fixture.origin,
      connections: 1,
      requestTimeoutMs: 300,
    });
    const before = fixture.received.length;

    // Act
    const outcomes = await Promise.all([1, 2, 3].map(() => single.invoke(requestOf('ok'), never)));
    await single.close();

    // Assert
    expect(outcomes).toEqual([{ kind: 'ok' }, { kind: 'ok' }, { kind: 'ok' }]);
    expect(fixture.received.length - before).toBe(3);
  });

  it('aborts a request still waiting for a connection without sending it', async () => {
    // Arrange: the only connection is held by a request the server never answers.
    const single = createHttpInvokeTransport({
      origin: fixture.origin,
      connections: 1,
      requestTimeoutMs: 300,
    });
    const held = single.invoke(requestOf('hang'), never);
    const abort = new AbortController();
    const waiting = single.invoke(requestOf('status:500 never sent'), abort.signal);

    // Act
    abort.abort('cancelled');
    const outcome = await waiting;
    await held;
    // On the one connection, anything queued before this request would reach the server first.
    const after = await single.invoke(requestOf('ok'), never);
    await single.close();

    // Assert
    expect(outcome).toEqual({ kind: 'timeout', message: 'aborted (cancelled)' });
    expect(after).toEqual({ kind: 'ok' });
    expect(fixture.received.map((request) => request.body)).not.toContain('status:500 never sent');
  });

  it('holds as many requests in flight as it has connections', async () => {
    // Act: the server answers only when all 8 are in flight at once.
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => transport.invoke(requestOf('gather'), never)),
    );

    // Assert
    expect(outcomes).toEqual(new Array(8).fill({ kind: 'ok' }));
  });
});

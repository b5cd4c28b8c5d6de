import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { createHttpInvokeTransport } from '../../../local/adapters/http-invoke-transport.js';
import type { InvokeRequest } from '../../../core/load-test/ports.js';

/*
 * The connection behaviours of the local transport's own HTTP/1.1 client (raw-http-connection.ts):
 * response framing, connections the server closes, resets and silences, aborts. The request/answer
 * contract is in http-invoke-transport.test.ts.
 */

const never = new AbortController().signal;
const request: InvokeRequest = {
  body: new TextEncoder().encode('{"inputs":[1]}'),
  contentType: 'application/json',
};

interface Fixture {
  readonly origin: string;
  /** TCP connections the server accepted. */
  connections: number;
  close(): Promise<void>;
}

const open: Fixture[] = [];
const transports: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  await Promise.all(open.splice(0).map((fixture) => fixture.close()));
});

/** A node:http model server on loopback answering with `handle`. */
async function httpServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  configure: (server: Server) => void = () => undefined,
): Promise<Fixture> {
  const server = createServer((incoming, response) => {
    incoming.resume();
    incoming.on('end', () => {
      handle(incoming, response);
    });
  });
  configure(server);
  return listen(server, () => {
    server.closeAllConnections();
  });
}

/** A TCP server on loopback writing whatever `respond` writes to each request's socket. */
async function rawServer(respond: (socket: Socket) => void): Promise<Fixture> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // The transport writes each request at once; on loopback it arrives as one chunk.
    socket.on('data', () => {
      respond(socket);
    });
  });
  return listen(server, () => {
    for (const socket of sockets) socket.destroy();
  });
}

function listen(server: Server | NetServer, closeSockets: () => void): Promise<Fixture> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const fixture: Fixture = {
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        connections: 0,
        close: () => {
          closeSockets();
          return new Promise((done) => {
            server.close(() => {
              done();
            });
          });
        },
      };
      server.on('connection', () => {
        fixture.connections++;
      });
      open.push(fixture);
      resolve(fixture);
    });
  });
}

function transportTo(fixture: Fixture, connections = 1): ReturnType<typeof createHttpInvokeTransport> {
  const transport = createHttpInvokeTransport({ origin: fixture.origin, connections, requestTimeoutMs: 300 });
  transports.push(transport);
  return transport;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('HTTP invoke transport connections', () => {
  it('reads a chunked body to its last chunk before it settles', async () => {
    // Prepare: the body comes in two chunks 30 ms apart.
    let ended = false;
    const fixture = await httpServer((_incoming, response) => {
      response.write('{"generated":');
      setTimeout(() => {
        ended = true;
        response.end('"text"}');
      }, 30);
    });

    // Act
    const outcome = await transportTo(fixture).invoke(request, never);

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(ended).toBe(true);
  });

  it('keeps a chunked 500 body for the error sample', async () => {
    // Prepare
    const fixture = await httpServer((_incoming, response) => {
      response.writeHead(500);
      response.write('model ');
      setTimeout(() => response.end('failed'), 10);
    });

    // Act
    const outcome = await transportTo(fixture).invoke(request, never);

    // Assert
    expect(outcome).toEqual({ kind: 'model-error', statusCode: 500, message: 'HTTP 500: model failed' });
  });

  it('reconnects and sends when the server closed the idle connection', async () => {
    // Prepare: the server answers, then closes the connection 20 ms later, while it is idle.
    const fixture = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
      setTimeout(() => socket.end(), 20);
    });
    const transport = transportTo(fixture);
    const first = await transport.invoke(request, never);
    await sleep(100);

    // Act
    const second = await transport.invoke(request, never);

    // Assert
    expect([first, second]).toEqual([{ kind: 'ok' }, { kind: 'ok' }]);
    expect(fixture.connections).toBe(2);
  });

  it('keeps one connection for requests in a row', async () => {
    // Prepare
    const fixture = await httpServer((_incoming, response) => response.end('ok'));
    const transport = transportTo(fixture);

    // Act
    const outcomes = [await transport.invoke(request, never), await transport.invoke(request, never)];

    // Assert
    expect(outcomes).toEqual([{ kind: 'ok' }, { kind: 'ok' }]);
    expect(fixture.connections).toBe(1);
  });

  it('opens a new connection after a Connection: close response', async () => {
    // Prepare
    const fixture = await httpServer((_incoming, response) => {
      response.setHeader('connection', 'close');
      response.end('ok');
    });
    const transport = transportTo(fixture);

    // Act
    const outcomes = [await transport.invoke(request, never), await transport.invoke(request, never)];

    // Assert
    expect(outcomes).toEqual([{ kind: 'ok' }, { kind: 'ok' }]);
    expect(fixture.connections).toBe(2);
  });

  it('fails when the connection is reset mid-response', async () => {
    // Prepare: half the announced body, then a TCP reset.
    const fixture = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n12345');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });

    // Act
    const outcome = await transportTo(fixture).invoke(request, never);

    // Assert
    expect(outcome).toEqual({
      kind: 'client-error',
      message: 'request failed: Error: read ECONNRESET (ECONNRESET)',
    });
  });

  it('fails when the server closes the connection mid-response', async () => {
    // Prepare: half the announced body, then the end of the connection.
    const fixture = await rawServer((socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n12345');
    });

    // Act
    const outcome = await transportTo(fixture).invoke(request, never);

    // Assert
    expect(outcome).toEqual({
      kind: 'client-error',
      message: 'request failed: SocketError: other side closed (UND_ERR_SOCKET)',
    });
  });

  it("completes a body that runs to the connection's end", async () => {
    // Prepare: neither a length nor chunked framing, so the body ends with the connection.
    const fixture = await rawServer((socket) => {
      socket.end('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{"prediction":1}');
    });

    // Act
    const outcome = await transportTo(fixture).invoke(request, never);

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
  });

  it('skips an informational response before the final one', async () => {
    // Prepare
    const fixture = await rawServer((socket) => {
      socket.write(
        'HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 503 Unavailable\r\ncontent-length: 4\r\n\r\nbusy',
      );
    });

    // Act
    const outcome = await transportTo(fixture).invoke(request, never);

    // Assert
    expect(outcome).toEqual({ kind: 'throttled', statusCode: 503, message: 'HTTP 503: busy' });
  });

  it('reports a body silent past the request timeout as a timeout and then sends on a new connection', async () => {
    // Prepare: the first request's body stops half-way; the second is answered.
    let answered = 0;
    const fixture = await httpServer((_incoming, response) => {
      answered++;
      if (answered === 1) response.writeHead(200, { 'content-length': '10' }).write('12345');
      else response.end('ok');
    });
    const transport = transportTo(fixture);

    // Act
    const outcomes = [await transport.invoke(request, never), await transport.invoke(request, never)];

    // Assert
    expect(outcomes).toEqual([
      { kind: 'timeout', message: 'no complete response within 300 ms (UND_ERR_BODY_TIMEOUT)' },
      { kind: 'ok' },
    ]);
    expect(fixture.connections).toBe(2);
  });

  it('aborts a request mid-response and sends the next one on a new connection', async () => {
    // Prepare: the first response sends its headers and then nothing.
    let answered = 0;
    const fixture = await httpServer((_incoming, response) => {
      answered++;
      if (answered === 1) response.writeHead(200, { 'content-length': '10' }).write('12345');
      else response.end('ok');
    });
    const transport = transportTo(fixture);
    const abort = new AbortController();
    setTimeout(() => {
      abort.abort('step over');
    }, 50);

    // Act
    const outcomes = [await transport.invoke(request, abort.signal), await transport.invoke(request, never)];

    // Assert
    expect(outcomes).toEqual([{ kind: 'timeout', message: 'aborted (step over)' }, { kind: 'ok' }]);
    expect(fixture.connections).toBe(2);
  });

  it('refuses a content type that is not a valid header value without sending it', async () => {
    // Prepare
    const fixture = await httpServer((_incoming, response) => response.end('ok'));

    // Act
    const outcome = await transportTo(fixture).invoke(
      { ...request, contentType: 'application/json\r\nx-injected: 1' },
      never,
    );

    // Assert
    expect(outcome).toEqual({
      kind: 'client-error',
      message:
        'request failed: the content-type "application/json\\r\\nx-injected: 1" is not a valid HTTP header value: expected visible ASCII characters, spaces and tabs (RFC 9110 section 5.5); fix the request\'s contentType',
    });
    expect(fixture.connections).toBe(0);
  });

  it('lets the request in flight finish before it closes, however often close is called', async () => {
    // Prepare: the answer comes 30 ms after the request.
    const fixture = await httpServer((_incoming, response) => {
      setTimeout(() => response.end('ok'), 30);
    });
    const transport = transportTo(fixture);
    const inFlight = transport.invoke(request, never);

    // Act
    const settled = await Promise.all([inFlight, transport.close(), transport.close()]);

    // Assert
    expect(settled).toEqual([{ kind: 'ok' }, undefined, undefined]);
  });

  it('refuses an origin that is not http://host:port', () => {
    expect(() =>
      createHttpInvokeTransport({ origin: 'https://127.0.0.1:8443', connections: 1, requestTimeoutMs: 300 }),
    ).toThrow(
      "The local HTTP transport got origin https://127.0.0.1:8443: expected http://host:port with a port from 1 to 65535 (local model servers listen on plain HTTP); give the model server's http:// URL",
    );
    expect(() =>
      createHttpInvokeTransport({ origin: 'http://127.0.0.1:0', connections: 1, requestTimeoutMs: 300 }),
    ).toThrow(
      'The local HTTP transport got origin http://127.0.0.1:0: expected http://host:port with a port',
    );
  });

  it('refuses a request after close', async () => {
    // Prepare
    const fixture = await httpServer((_incoming, response) => response.end('ok'));
    const transport = transportTo(fixture);
    await transport.close();

    // Act
    const outcome = await transport.invoke(request, never);

    // Assert
    expect(outcome).toEqual({
      kind: 'client-error',
      message: 'request failed: the local HTTP transport is closed',
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../../../core/load-test/clock.js';
import type { InvokeRequest } from '../../../core/load-test/ports.js';
import { createStreamParser, invokeStreamed } from '../../../core/load-test/streaming/index.js';
import { createHttpStreamTransport } from '../../../local/adapters/http-stream-transport.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (parts: readonly Uint8Array[]): string[] => parts.map((part) => new TextDecoder().decode(part));

/** An OpenAI-compatible chunk as vLLM writes it (`data: {...}` and a blank line). */
const chunk = (content: string, finishReason: string | null = null): string =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: finishReason }] })}\n\n`;
const USAGE = `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } })}\n\n`;
const DONE = 'data: [DONE]\n\n';

interface Received {
  method: string | undefined;
  url: string | undefined;
  contentType: string | undefined;
  accept: string | undefined;
  body: string;
}

/**
 * A loopback model server streaming a canned OpenAI-compatible SSE answer, chosen by the request
 * body: `step` writes each chunk only once the test releases it (`next`), `paced` every 40 ms,
 * `cut` one chunk and then drops the connection, `unfinished` ends the body without `[DONE]`,
 * `trickle` a chunk every 30 ms for ever, `status:NNN text` an error answer.
 */
function startServer(): Promise<{ server: Server; origin: string; received: Received[]; next: () => void }> {
  const received: Received[] = [];
  let release: (() => void) | undefined;
  const released = (): Promise<void> =>
    new Promise((resolve) => {
      release = resolve;
    });
  const stream = (response: ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
  };
  const handle = async (request: IncomingMessage, response: ServerResponse, body: string): Promise<void> => {
    received.push({
      method: request.method,
      url: request.url,
      contentType: request.headers['content-type'],
      accept: request.headers.accept,
      body,
    });
    if (body === 'step') {
      stream(response);
      for (const part of [chunk('Deep'), chunk(' learning'), chunk(' is', 'length') + USAGE + DONE]) {
        response.write(part);
        await released();
      }
      response.end();
    } else if (body === 'paced') {
      stream(response);
      for (const part of [chunk('Deep'), chunk(' learning'), chunk(' is', 'length'), USAGE + DONE]) {
        await sleep(40);
        response.write(part);
      }
      response.end();
    } else if (body === 'cut') {
      stream(response);
      response.write(chunk('Deep'));
      await sleep(20);
      response.destroy();
    } else if (body === 'unfinished') {
      stream(response);
      response.end(chunk('Deep'));
    } else if (body === 'trickle') {
      stream(response);
      while (!response.destroyed) {
        response.write(chunk('.'));
        await sleep(30);
      }
    } else if (body.startsWith('status:')) {
      const status = Number(body.slice('status:'.length, 'status:'.length + 3));
      response.writeHead(status).end(body.slice('status:'.length + 4));
    } else response.writeHead(400).end('unknown test instruction');
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (part: Buffer) => chunks.push(part));
    request.on('end', () => {
      void handle(request, response, Buffer.concat(chunks).toString('utf8'));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}`, received, next: () => release?.() });
    });
  });
}

function requestOf(body: string, accept?: string): InvokeRequest {
  return { body: utf8(body), contentType: 'application/json', ...(accept === undefined ? {} : { accept }) };
}

describe('HTTP stream transport', () => {
  let fixture: Awaited<ReturnType<typeof startServer>>;
  let transport: ReturnType<typeof createHttpStreamTransport>;
  const never = new AbortController().signal;

  beforeAll(async () => {
    fixture = await startServer();
    transport = createHttpStreamTransport({
      origin: fixture.origin,
      connections: 4,
      requestTimeoutMs: 2_000,
    });
  });

  afterAll(async () => {
    await transport.close();
    fixture.server.closeAllConnections();
    await new Promise((resolve) => fixture.server.close(resolve));
  });

  it('POSTs the body with its content type and accept header, and hands over each piece as it arrives', async () => {
    // Prepare: the server writes its next chunk only after the transport handed over the previous one,
    // so a transport that buffered the body would never finish.
    const parts: Uint8Array[] = [];
    const onPart = (bytes: Uint8Array): void => {
      parts.push(bytes);
      fixture.next();
    };

    // Act
    const outcome = await transport.invokeStream(requestOf('step', 'text/event-stream'), never, onPart);

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(text(parts)).toEqual([chunk('Deep'), chunk(' learning'), chunk(' is', 'length') + USAGE + DONE]);
    expect(fixture.received.at(-1)).toEqual({
      method: 'POST',
      url: '/invocations',
      contentType: 'application/json',
      accept: 'text/event-stream',
      body: 'step',
    });
  });

  it('gives the real parser and clock the time of each token: TTFT and token arrivals no earlier than the server pace', async () => {
    // Act: the server writes a token every 40 ms.
    const result = await invokeStreamed(
      transport,
      requestOf('paced'),
      never,
      createStreamParser('openai'),
      systemClock,
    );

    // Assert: real timers, so lower bounds (a timer never fires more than 1 ms early) and the counts.
    expect(result.outcome).toEqual({ kind: 'ok' });
    expect(result.timing).toMatchObject({
      outputTokens: 3,
      outputTokenSource: 'server',
      countedTokens: 3,
      inputTokens: 5,
      finishReason: 'length',
    });
    expect(result.timing.ttftUs).toBeGreaterThanOrEqual(39_000);
    expect(result.timing.interTokenUs).toHaveLength(2);
    // A gap between two arrivals can be shorter than the pace (the first one came late); the third
    // token cannot arrive before three paces.
    const [first = 0, second = 0] = result.timing.interTokenUs;
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
    expect((result.timing.ttftUs ?? 0) + first + second).toBeGreaterThanOrEqual(119_000);
    expect(result.timing.e2eUs).toBeGreaterThanOrEqual(159_000);
  });

  it('fails as a client error when the server drops the connection mid-stream, keeping the token before', async () => {
    // Act
    const result = await invokeStreamed(
      transport,
      requestOf('cut'),
      never,
      createStreamParser('openai'),
      systemClock,
    );

    // Assert
    expect(result.outcome.kind).toBe('client-error');
    expect(result.outcome.kind === 'ok' ? '' : result.outcome.message).toMatch(
      /^request failed: .*other side closed.* \(UND_ERR_SOCKET\)$/,
    );
    expect(result.timing.countedTokens).toBe(1);
    expect(result.timing.ttftUs).toBeDefined();
  });

  it('is ok for a body that ends without the terminal event, which the parser calls truncated', async () => {
    // Act
    const result = await invokeStreamed(
      transport,
      requestOf('unfinished'),
      never,
      createStreamParser('openai'),
      systemClock,
    );

    // Assert
    const message =
      'the OpenAI-compatible stream ended without its terminal event ("data: [DONE]" or a chunk with a finish_reason): the container closed the response before finishing';
    expect(result.outcome).toEqual({ kind: 'model-error', message });
    expect(result.streamFailure).toEqual({ reason: 'truncated', message });
    expect(result.timing.countedTokens).toBe(1);
  });

  it('reports a 5xx from the model as a model error with its body, and hands over no part', async () => {
    // Prepare
    const parts: Uint8Array[] = [];

    // Act
    const outcome = await transport.invokeStream(
      requestOf('status:500 {"error":"CUDA out of memory"}'),
      never,
      (bytes) => parts.push(bytes),
    );

    // Assert
    expect(outcome).toEqual({
      kind: 'model-error',
      statusCode: 500,
      message: 'HTTP 500: {"error":"CUDA out of memory"}',
    });
    expect(parts).toEqual([]);
  });

  it('reports a 4xx from the model as a model error, and 429 as throttling', async () => {
    // Act
    const outcomes = await Promise.all([
      transport.invokeStream(requestOf('status:400 max_tokens must be at most 4096'), never, () => undefined),
      transport.invokeStream(requestOf('status:429 slow down'), never, () => undefined),
    ]);

    // Assert
    expect(outcomes).toEqual([
      { kind: 'model-error', statusCode: 400, message: 'HTTP 400: max_tokens must be at most 4096' },
      { kind: 'throttled', statusCode: 429, message: 'HTTP 429: slow down' },
    ]);
  });

  it('fails as a timeout when the stream outlives the request timeout, and hands over nothing after', async () => {
    // Prepare: a server that never stops streaming; undici's body timeout alone would never fire.
    // 500 ms, so that a starved CPU still delivers some of the stream before the deadline.
    const short = createHttpStreamTransport({
      origin: fixture.origin,
      connections: 1,
      requestTimeoutMs: 500,
    });
    const parts: Uint8Array[] = [];

    // Act
    const outcome = await short.invokeStream(requestOf('trickle'), never, (bytes) => parts.push(bytes));
    const atSettle = parts.length;
    await sleep(100);
    await short.close();

    // Assert
    expect(outcome).toEqual({ kind: 'timeout', message: 'no complete stream within 500 ms' });
    expect(atSettle).toBeGreaterThan(0);
    expect(parts).toHaveLength(atSettle);
  });

  it('fails as a timeout a stream still waiting for a connection when its deadline passes, without sending it', async () => {
    // Prepare: the only connection is held by a stream that never ends, already streaming.
    const short = createHttpStreamTransport({
      origin: fixture.origin,
      connections: 1,
      requestTimeoutMs: 150,
    });
    const before = fixture.received.length;
    let streaming: () => void = () => undefined;
    const firstPart = new Promise<void>((resolve) => (streaming = resolve));
    const held = short.invokeStream(requestOf('trickle'), never, () => {
      streaming();
    });
    await firstPart;

    // Act: both deadlines pass while this process is busy, so the timers run together, the held
    // stream's first. Had the waiting one's come a millisecond later, the connection the held stream
    // gave back could have carried it, rightly, before its deadline (a race this test once lost on a
    // busy machine).
    const waitingOutcome = short.invokeStream(requestOf('status:500 never sent'), never, () => undefined);
    const busyUntil = performance.now() + 200;
    while (performance.now() < busyUntil) {
      // Hold the event loop past both deadlines.
    }
    const waiting = await waitingOutcome;
    await held;
    await short.close();

    // Assert
    expect(waiting).toEqual({ kind: 'timeout', message: 'no complete stream within 150 ms' });
    expect(fixture.received.slice(before).map((request) => request.body)).toEqual(['trickle']);
  });

  it("settles as a timeout with the reason when the step's signal aborts mid-stream", async () => {
    // Prepare
    const step = new AbortController();
    setTimeout(() => {
      step.abort('deadline');
    }, 50);

    // Act
    const outcome = await transport.invokeStream(requestOf('trickle'), step.signal, () => undefined);

    // Assert
    expect(outcome).toEqual({ kind: 'timeout', message: 'aborted (deadline)' });
  });

  it('queues streams beyond its connections and runs each once a connection is free', async () => {
    // Prepare
    const single = createHttpStreamTransport({
      origin: fixture.origin,
      connections: 1,
      requestTimeoutMs: 2_000,
    });
    const parts: string[][] = [[], []];

    // Act
    const outcomes = await Promise.all(
      [0, 1].map((index) =>
        single.invokeStream(requestOf('unfinished'), never, (bytes) => parts[index]?.push(...text([bytes]))),
      ),
    );
    await single.close();

    // Assert
    expect(outcomes).toEqual([{ kind: 'ok' }, { kind: 'ok' }]);
    expect(parts).toEqual([[chunk('Deep')], [chunk('Deep')]]);
  });
});

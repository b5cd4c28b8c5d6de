/**
 * The model server: SageMaker's inference container contract over ONNX Runtime.
 *
 * - `GET /ping`: 200 when the model is loaded and a worker is alive (SageMaker's health check).
 * - `POST /invocations`: inference (see payload.ts for bodies).
 * - `GET /metrics`: JSON counters (batches, batch sizes, queue) for tests and the local host.
 * Contract: https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-inference-code.html
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ModelExecutionError, QueueFullError, RequestTimeoutError, ServerClosingError } from './errors.js';
import { InferenceScheduler } from './inference-scheduler.js';
import type { SchedulerMetrics } from './inference-scheduler.js';
import { findModelFile } from './model-location.js';
import type { ModelSignature } from './model-signature.js';
import {
  formatJsonResponse,
  formatRawResponse,
  JSON_CONTENT_TYPE,
  parseSamples,
  PayloadError,
  RAW_CONTENT_TYPE,
  requestFormat,
  responseFormat,
} from './payload.js';
import { resolveServerOptions } from './server-options.js';
import type { ModelServerOptions } from './server-options.js';
import { InferenceWorkerPool } from './worker-pool.js';

/**
 * SageMaker caps a real-time invocation payload at 6 MB (InvokeEndpoint `Body`, maximum length
 * 6291456 bytes: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html).
 */
export const MAX_PAYLOAD_BYTES = 6_291_456;

/** How long open connections may linger once every accepted request is answered. */
const CONNECTION_GRACE_MS = 1000;

export interface ModelServerMetrics extends SchedulerMetrics {
  readonly workers: number;
  readonly liveWorkers: number;
  /** HTTP responses by status code. */
  readonly responses: Readonly<Record<string, number>>;
}

export interface ModelServerHandle {
  readonly port: number;
  /** Base URL for clients on this machine, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly options: ModelServerOptions;
  readonly modelPath: string;
  readonly signature: ModelSignature;
  metrics(): ModelServerMetrics;
  /** Graceful shutdown: refuse new requests, answer the accepted ones, stop the workers. */
  close(): Promise<void>;
}

export type StartModelServerOptions = Partial<ModelServerOptions> & Pick<ModelServerOptions, 'modelDir'>;

const ROUTES: Readonly<Record<string, string>> = {
  '/ping': 'GET',
  '/invocations': 'POST',
  '/metrics': 'GET',
};

/** Loads the model into the workers, then listens. Resolves once the server accepts requests. */
/**
 * The server's `close`, once however often it is called: stop accepting connections (requests on
 * open keep-alive connections get 503 from then on), let the work in hand finish (`drain`), close
 * idle sockets at once and the rest after a grace period (answers sent while closing carry
 * `Connection: close`, so a socket still open then has no request left to answer), then release
 * what the server held (`release`: the worker pool, the decoding scheduler).
 */
export function closeGracefully(
  server: Server,
  drain: () => Promise<void>,
  release: () => Promise<void>,
): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      const serverClosed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      await drain();
      server.closeIdleConnections();
      const forceClose = setTimeout(() => {
        server.closeAllConnections();
      }, CONNECTION_GRACE_MS);
      await serverClosed;
      clearTimeout(forceClose);
      await release();
    })();
    return closing;
  };
}

/** Responses by status code, as a server's `metrics()` reports them. */
export function responseCounter(): {
  readonly count: (statusCode: number) => void;
  readonly byStatus: () => Record<string, number>;
} {
  const responses = new Map<number, number>();
  return {
    count: (statusCode) => responses.set(statusCode, (responses.get(statusCode) ?? 0) + 1),
    byStatus: () => Object.fromEntries([...responses.entries()].map(([code, n]) => [String(code), n])),
  };
}

/**
 * An HTTP server on the options' host and port for `handle`, with its graceful `close`
 * (`closeGracefully`). A listen that fails (the port taken) releases what was started for the
 * server before the error is thrown, so nothing is left running.
 */
export async function serveHttp(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  options: { readonly port: number; readonly host: string },
  lifecycle: { readonly drain: () => Promise<void>; readonly release: () => Promise<void> },
): Promise<{ readonly port: number; readonly url: string; readonly close: () => Promise<void> }> {
  const server = createServer(handle);
  try {
    await listen(server, options.port, options.host);
  } catch (error) {
    await lifecycle.release();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${clientHost(options.host)}:${port}`,
    close: closeGracefully(server, lifecycle.drain, lifecycle.release),
  };
}

export async function startModelServer(startOptions: StartModelServerOptions): Promise<ModelServerHandle> {
  const options = resolveServerOptions(startOptions);
  const modelPath = await findModelFile(options.modelDir);
  const pool = await InferenceWorkerPool.start(
    { modelPath, intraOpThreads: options.intraOpThreads, spinWait: options.spinWait },
    options.workers,
  );
  const { signature } = pool;
  const scheduler = new InferenceScheduler(pool, {
    maxBatchSize: options.maxBatchSize,
    maxBatchDelayMs: options.maxBatchDelayMs,
    maxQueue: options.maxQueue,
    requestTimeoutMs: options.requestTimeoutMs,
    sampleSize: signature.input.sampleSize,
  });
  const responses = responseCounter();
  const context: RequestContext = {
    signature,
    scheduler,
    isHealthy: () => pool.liveWorkers > 0 && !scheduler.isClosing,
    metrics: () => ({
      ...scheduler.metrics(),
      workers: options.workers,
      liveWorkers: pool.liveWorkers,
      responses: responses.byStatus(),
    }),
    countResponse: responses.count,
  };

  const served = await serveHttp(
    (request, response) => {
      void handleRequest(context, request, response);
    },
    options,
    { drain: () => scheduler.drain(), release: () => pool.close() },
  );
  return { ...served, options, modelPath, signature, metrics: () => context.metrics() };
}

interface RequestContext {
  readonly signature: ModelSignature;
  readonly scheduler: InferenceScheduler;
  isHealthy(): boolean;
  metrics(): ModelServerMetrics;
  countResponse(statusCode: number): void;
}

async function handleRequest(
  context: RequestContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const send = (statusCode: number, contentType: string, body: string | Buffer, headers = {}) => {
    context.countResponse(statusCode);
    response.writeHead(statusCode, {
      'Content-Type': contentType,
      'Content-Length': Buffer.byteLength(body),
      ...(context.scheduler.isClosing ? { Connection: 'close' } : {}),
      ...headers,
    });
    response.end(body);
  };
  const sendError = (statusCode: number, message: string, headers = {}) => {
    send(statusCode, JSON_CONTENT_TYPE, JSON.stringify({ error: message }), headers);
  };

  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const method = ROUTES[path];
  if (method === undefined) {
    sendError(404, `No route ${path}: expected GET /ping, POST /invocations or GET /metrics`);
    return;
  }
  if (request.method !== method) {
    sendError(405, `${request.method ?? '?'} ${path} is not allowed: expected ${method}`, {
      Allow: method,
    });
    return;
  }
  if (path === '/ping') {
    if (context.isHealthy()) send(200, JSON_CONTENT_TYPE, JSON.stringify({ status: 'Healthy' }));
    else sendError(503, 'Unhealthy: the server is shutting down or has no live inference worker');
    return;
  }
  if (path === '/metrics') {
    send(200, JSON_CONTENT_TYPE, JSON.stringify(context.metrics()));
    return;
  }

  try {
    if (context.scheduler.isClosing) throw new ServerClosingError('The model server is shutting down');
    const inputFormat = requestFormat(request.headers['content-type']);
    const outputFormat = responseFormat(request.headers.accept);
    const body = await readBody(request);
    const { samples, count } = parseSamples(inputFormat, body, context.signature.input);
    const { output, dims } = await context.scheduler.submit(samples, count);
    if (outputFormat === 'json') {
      send(200, JSON_CONTENT_TYPE, formatJsonResponse(output, dims));
    } else {
      send(200, RAW_CONTENT_TYPE, formatRawResponse(output), {
        'X-Output-Name': context.signature.output.name,
        'X-Output-Shape': dims.join(','),
      });
    }
  } catch (error) {
    const { statusCode, message } = errorResponse(error);
    // After a 413 the rest of the body is unread: close the connection rather than drain it.
    sendError(statusCode, message, statusCode === 413 ? { Connection: 'close' } : {});
  }
}

function errorResponse(error: unknown): { statusCode: number; message: string } {
  if (error instanceof PayloadError) return { statusCode: error.statusCode, message: error.message };
  if (error instanceof QueueFullError || error instanceof ServerClosingError) {
    return { statusCode: 503, message: error.message };
  }
  if (error instanceof RequestTimeoutError) return { statusCode: 504, message: error.message };
  if (error instanceof ModelExecutionError) return { statusCode: 500, message: error.message };
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { statusCode: 500, message: `Internal server error: ${message}` };
}

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (declared > MAX_PAYLOAD_BYTES) throw payloadTooLarge(`${declared} bytes (Content-Length)`);
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    received += buffer.length;
    if (received > MAX_PAYLOAD_BYTES) throw payloadTooLarge(`more than ${MAX_PAYLOAD_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, received);
}

function payloadTooLarge(given: string): PayloadError {
  return new PayloadError(
    413,
    `Payload too large: got ${given}, expected at most ${MAX_PAYLOAD_BYTES} bytes (the SageMaker InvokeEndpoint limit)`,
  );
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The address a local client uses to reach a server bound to `host`. */
export function clientHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

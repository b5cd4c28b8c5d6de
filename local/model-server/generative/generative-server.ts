/**
 * The model server for a generative model: the SageMaker inference container contract (`GET
 * /ping`, `POST /invocations`, the port and settings from the environment) over the example
 * generative model, decoding token by token (generation-scheduler.ts) and answering in the
 * containers' formats (response-formats.ts).
 *
 * A streamed answer (`"stream": true`) is written as the tokens come, one chunk per step, with
 * HTTP/1.1 chunked transfer encoding (no Content-Length): that is how a container streams to
 * SageMaker, which relays each piece to an `InvokeEndpointWithResponseStream` caller as a
 * `PayloadPart` ("How containers serve requests",
 * https://docs.aws.amazon.com/sagemaker/latest/dg/your-algorithms-inference-code.html; the
 * `ResponseStream` shape, API_runtime_ResponseStream.html). A failure after the 200 is written as
 * the format's error event, since the status is already sent.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { InputIssue } from '../../../core/contracts/index.js';
import { GENERATIVE_MODEL_SIGNATURE, onnx } from '../../example-model/index.js';
import {
  InvalidServerConfigError,
  ModelExecutionError,
  QueueFullError,
  RequestTimeoutError,
  ServerClosingError,
} from '../errors.js';
import { readBody, responseCounter, serveHttp } from '../model-server.js';
import { JSON_CONTENT_TYPE, PayloadError } from '../payload.js';
import { resolveServerOptions } from '../server-options.js';
import type { ModelServerOptions } from '../server-options.js';
import { GenerationRequestError, parseGenerationRequest } from './generation-request.js';
import type { GenerationRequest } from './generation-request.js';
import { GenerationScheduler } from './generation-scheduler.js';
import type { GenerationMetrics, GenerationSummary } from './generation-scheduler.js';
import { completeResponse, GENERATE_FORMATS, streamWriterFor } from './response-formats.js';
import type { GenerateFormat } from './response-formats.js';
import { WorkerStepRunner } from './step-runner.js';

/** The container format of `generate` (`inputs`) requests; chat requests are always OpenAI's. */
export const STREAM_FORMAT_ENV = 'MODEL_SERVER_STREAM_FORMAT';
export const DEFAULT_GENERATE_FORMAT: GenerateFormat = 'tgi';

/** How long open connections may linger once every accepted generation has ended. */

/**
 * The vision server's options, read the same way (server-options.ts), with these meanings here:
 * `maxBatchSize` is the number of sequences decoded together, `maxQueue` the generations waiting
 * for a place in the batch, `requestTimeoutMs` the deadline of a whole generation; `workers` and
 * `maxBatchDelayMs` do not apply (one decoding loop, which admits waiting sequences at every step).
 */
export interface GenerativeServerOptions extends ModelServerOptions {
  readonly generateFormat: GenerateFormat;
}

export interface GenerativeServerMetrics extends GenerationMetrics {
  readonly responses: Readonly<Record<string, number>>;
}

export interface GenerativeServerHandle {
  readonly port: number;
  readonly url: string;
  readonly options: GenerativeServerOptions;
  readonly modelPath: string;
  metrics(): GenerativeServerMetrics;
  close(): Promise<void>;
}

/**
 * Whether an ONNX file is a generative model this server decodes (its graph takes `token_ids` and
 * `state`), read from the graph's declared inputs without loading it into ONNX Runtime. The input
 * names survive local/compiler's optimization, so a compiled artifact is recognised too.
 */
export async function isGenerativeModelFile(modelPath: string): Promise<boolean> {
  let model: ReturnType<typeof onnx.ModelProto.decode>;
  try {
    model = onnx.ModelProto.decode(await readFile(modelPath));
  } catch {
    // Not a model this can read: the vision server loads it, and ONNX Runtime says what is wrong.
    return false;
  }
  const inputs = new Set((model.graph?.input ?? []).map((input) => input.name));
  return inputs.has(GENERATIVE_MODEL_SIGNATURE.tokenIds) && inputs.has(GENERATIVE_MODEL_SIGNATURE.state);
}

/** The `generate` format from the environment; an unknown value names the variable. */
export function readGenerateFormatFromEnv(env: Readonly<Record<string, string | undefined>>): GenerateFormat {
  const raw = env[STREAM_FORMAT_ENV]?.trim() ?? '';
  if (raw === '') return DEFAULT_GENERATE_FORMAT;
  const format = GENERATE_FORMATS.find((candidate) => candidate === raw);
  if (format === undefined) {
    const issue: InputIssue = {
      field: STREAM_FORMAT_ENV,
      given: JSON.stringify(raw),
      expected: GENERATE_FORMATS.join(', '),
    };
    throw new InvalidServerConfigError([issue]);
  }
  return format;
}

type StartOptions = Partial<GenerativeServerOptions> & Pick<ModelServerOptions, 'modelDir'>;

/** Loads the generative model at `modelPath`, then listens. */
export async function startGenerativeServer(
  modelPath: string,
  startOptions: StartOptions,
): Promise<GenerativeServerHandle> {
  const options: GenerativeServerOptions = {
    ...resolveServerOptions(startOptions),
    generateFormat: startOptions.generateFormat ?? DEFAULT_GENERATE_FORMAT,
  };
  const runner = await WorkerStepRunner.start({
    modelPath,
    intraOpThreads: options.intraOpThreads,
    spinWait: options.spinWait,
  });
  const scheduler = new GenerationScheduler(runner, {
    maxBatchSize: options.maxBatchSize,
    maxQueue: options.maxQueue,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  const responses = responseCounter();
  const context: Context = {
    scheduler,
    format: options.generateFormat,
    countResponse: responses.count,
    metrics: () => ({ ...scheduler.metrics(), responses: responses.byStatus() }),
  };
  const served = await serveHttp(
    (request, response) => {
      void handleRequest(context, request, response);
    },
    options,
    { drain: () => scheduler.drain(), release: () => scheduler.close() },
  );
  return { ...served, options, modelPath, metrics: () => context.metrics() };
}

interface Context {
  readonly scheduler: GenerationScheduler;
  readonly format: GenerateFormat;
  countResponse(statusCode: number): void;
  metrics(): GenerativeServerMetrics;
}

const ROUTES: Readonly<Record<string, string>> = {
  '/ping': 'GET',
  '/invocations': 'POST',
  '/metrics': 'GET',
};

async function handleRequest(
  context: Context,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const send = (statusCode: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    context.countResponse(statusCode);
    response.writeHead(statusCode, {
      'Content-Type': JSON_CONTENT_TYPE,
      'Content-Length': Buffer.byteLength(text),
      ...(context.scheduler.isClosing ? { Connection: 'close' } : {}),
      ...headers,
    });
    response.end(text);
  };
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  const method = ROUTES[path];
  if (method === undefined) {
    send(404, { error: `No route ${path}: expected GET /ping, POST /invocations or GET /metrics` });
    return;
  }
  if (request.method !== method) {
    send(
      405,
      { error: `${request.method ?? '?'} ${path} is not allowed: expected ${method}` },
      { Allow: method },
    );
    return;
  }
  if (path === '/ping') {
    if (context.scheduler.isHealthy) send(200, { status: 'Healthy' });
    else send(503, { error: 'Unhealthy: the server is shutting down or its decoding worker stopped' });
    return;
  }
  if (path === '/metrics') {
    send(200, context.metrics());
    return;
  }
  try {
    if (context.scheduler.isClosing) throw new ServerClosingError('The model server is shutting down');
    const contentType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (contentType !== JSON_CONTENT_TYPE) {
      throw new PayloadError(
        415,
        `Unsupported Content-Type: got ${JSON.stringify(request.headers['content-type'] ?? 'none')}, expected ${JSON_CONTENT_TYPE}`,
      );
    }
    const generation = parseGenerationRequest((await readBody(request)).toString('utf8'));
    if (generation.stream) streamGeneration(context, generation, response);
    else await answerGeneration(context, generation, response, send);
  } catch (error) {
    if (response.destroyed) return;
    const { statusCode, message } = errorResponse(error);
    send(statusCode, { error: message }, statusCode === 413 ? { Connection: 'close' } : {});
  }
}

/** Writes each token as the step that made it ends; the client going away cancels the sequence. */
function streamGeneration(context: Context, generation: GenerationRequest, response: ServerResponse): void {
  const writer = streamWriterFor(generation, context.format);
  let ended = false;
  const handle = context.scheduler.submit(generation, {
    token(token, last) {
      if (ended) return;
      response.write(writer.token(token, last));
      if (last !== undefined) {
        ended = true;
        response.end();
      }
    },
    fail(error) {
      if (ended) return;
      ended = true;
      response.end(writer.fail(error.message));
    },
  });
  context.countResponse(200);
  response.writeHead(200, {
    'Content-Type': writer.contentType,
    'Cache-Control': 'no-cache',
    ...(context.scheduler.isClosing ? { Connection: 'close' } : {}),
  });
  const start = writer.start();
  if (start === '') response.flushHeaders();
  else response.write(start);
  response.on('close', () => {
    if (!ended) handle.cancel();
    ended = true;
  });
}

async function answerGeneration(
  context: Context,
  generation: GenerationRequest,
  response: ServerResponse,
  send: (statusCode: number, body: unknown) => void,
): Promise<void> {
  let answered = false;
  const summary = await new Promise<GenerationSummary>((resolve, reject) => {
    const handle = context.scheduler.submit(generation, {
      token(_token, last) {
        if (last !== undefined) resolve(last);
      },
      fail: reject,
    });
    // A client that went away stops its generation, as for a stream; nothing is left to answer.
    response.on('close', () => {
      if (answered) return;
      handle.cancel();
      reject(new Error('the client closed the connection before the answer'));
    });
  });
  answered = true;
  send(200, completeResponse(generation, context.format, summary));
}

function errorResponse(error: unknown): { statusCode: number; message: string } {
  if (error instanceof GenerationRequestError) return { statusCode: 400, message: error.message };
  if (error instanceof PayloadError) return { statusCode: error.statusCode, message: error.message };
  if (error instanceof QueueFullError || error instanceof ServerClosingError) {
    return { statusCode: 503, message: error.message };
  }
  if (error instanceof RequestTimeoutError) return { statusCode: 504, message: error.message };
  if (error instanceof ModelExecutionError) return { statusCode: 500, message: error.message };
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { statusCode: 500, message: `Internal server error: ${message}` };
}

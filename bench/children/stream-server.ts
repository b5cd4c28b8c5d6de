/**
 * The trivial streaming server of the streaming bench: node:http, chunked, every response `tokens`
 * tokens in one container format, with bytes made by the local generative server's own writers
 * (local/model-server/generative/response-formats.ts), so the clients read what local mode reads.
 * Nothing is computed per request: each format's pieces are built once at start.
 *
 * `POST /{format}` writes every token at once (zero inter-token delay: the client is the limit);
 * `POST /{format}/{firstTokenMs}/{interTokenMs}` writes token i at first + i × inter ms after the
 * request arrived, on an absolute schedule (each timer aims at its own instant), so one late timer
 * shifts one gap, not every later token. Such streams also record when each token was really
 * written: `GET /written` answers the median first-token delay and inter-token gap (ms) of the
 * scheduled streams since the last such call, what the engine's TTFT and ITL are checked against
 * beside the nominal delays. Prints {"port": n} when listening.
 */
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import type { GenerationRequest, GenerationSummary } from '../../local/model-server/index.js';
import { streamWriterFor } from '../../local/model-server/index.js';
import { median } from '../support/report.js';
import { BENCH_STREAM_FORMATS } from '../support/streaming.js';
import type { BenchStreamFormat } from '../support/streaming.js';
import { serveBenchChild } from '../support/child-server.js';

const { values } = parseArgs({ options: { tokens: { type: 'string' } } });
const tokens = Number(values.tokens ?? 64);

interface CannedStream {
  readonly contentType: string;
  /** The bytes written with the headers (OpenAI's role chunk), maybe empty. */
  readonly start: Buffer;
  /** One piece per token, the last with the format's terminal event(s). */
  readonly pieces: readonly Buffer[];
}

const WORDS = [' the', ' model', ' streams', ' one', ' token', ' at', ' a', ' time'];

function cannedStream(format: BenchStreamFormat): CannedStream {
  const request: GenerationRequest = {
    // OpenAI-compatible servers answer chat requests; TGI and LMI their generate route.
    api: format === 'openai' ? 'chat' : 'generate',
    prompt: 'bench',
    maxNewTokens: tokens,
    temperature: 0,
    stream: true,
    includeUsage: true,
    details: true,
  };
  const writer = streamWriterFor(request, format === 'openai' ? 'tgi' : format);
  const text = Array.from({ length: tokens }, (_, index) => WORDS[index % WORDS.length] ?? '').join('');
  const summary: GenerationSummary = {
    finishReason: 'length',
    generatedTokens: tokens,
    inputTokens: 1,
    text,
  };
  const pieces = Array.from({ length: tokens }, (_, index) =>
    Buffer.from(
      writer.token(
        { id: index, text: WORDS[index % WORDS.length] ?? '', special: false, logprob: -0.5 },
        index === tokens - 1 ? summary : undefined,
      ),
    ),
  );
  return { contentType: writer.contentType, start: Buffer.from(writer.start()), pieces };
}

const canned = new Map(BENCH_STREAM_FORMATS.map((format) => [format, cannedStream(format)]));

/**
 * Every token at once, each still its own HTTP chunk (the client's transport hands each chunk over
 * as one piece, as SageMaker hands one PayloadPart per event), corked into one socket write: the
 * server's cost per token is kept small so that the client, not the server, sets the pace.
 */
function streamAtOnce(response: ServerResponse, stream: CannedStream): void {
  response.cork();
  if (stream.start.length > 0) response.write(stream.start);
  const last = stream.pieces.length - 1;
  for (let index = 0; index < last; index++) response.write(stream.pieces[index]);
  response.end(stream.pieces[last]);
  response.uncork();
}

interface WrittenDelays {
  readonly firstTokenMs: number[];
  readonly interTokenMs: number[];
}

/** The delays the scheduled streams really wrote with, per format (timers fire late, never early). */
const written = new Map<BenchStreamFormat, WrittenDelays>();

function streamOnSchedule(
  response: ServerResponse,
  format: BenchStreamFormat,
  stream: CannedStream,
  firstTokenMs: number,
  interTokenMs: number,
): void {
  const arrivedMs = performance.now();
  const record = written.get(format) ?? { firstTokenMs: [], interTokenMs: [] };
  written.set(format, record);
  if (stream.start.length > 0) response.write(stream.start);
  else response.flushHeaders();
  let index = 0;
  let lastWrittenMs = arrivedMs;
  const next = (): void => {
    const writtenMs = performance.now();
    record[index === 0 ? 'firstTokenMs' : 'interTokenMs'].push(writtenMs - lastWrittenMs);
    lastWrittenMs = writtenMs;
    const piece = stream.pieces[index];
    index += 1;
    if (index >= stream.pieces.length) {
      response.end(piece);
      return;
    }
    response.write(piece);
    const dueMs = arrivedMs + firstTokenMs + index * interTokenMs;
    setTimeout(next, Math.max(0, dueMs - performance.now()));
  };
  setTimeout(next, Math.max(0, arrivedMs + firstTokenMs - performance.now()));
}

function answerWritten(response: ServerResponse): void {
  const medians = Object.fromEntries(
    [...written].map(([format, delays]) => [
      format,
      {
        firstTokenMs: median(delays.firstTokenMs),
        interTokenMs: median(delays.interTokenMs),
        tokens: delays.firstTokenMs.length + delays.interTokenMs.length,
      },
    ]),
  );
  written.clear();
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(medians));
}

const server = createServer((request, response) => {
  request.resume();
  if (request.method === 'GET' && request.url === '/written') {
    answerWritten(response);
    return;
  }
  const [, format = '', first, inter] = (request.url ?? '').split('/');
  const known = BENCH_STREAM_FORMATS.find((name) => name === format);
  const stream = known === undefined ? undefined : canned.get(known);
  if (known === undefined || stream === undefined) {
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end(`no stream format "${format}": expected /${BENCH_STREAM_FORMATS.join(', /')}`);
    return;
  }
  response.writeHead(200, { 'content-type': stream.contentType });
  if (first === undefined) streamAtOnce(response, stream);
  else streamOnSchedule(response, known, stream, Number(first), Number(inter ?? 0));
});
serveBenchChild(server);

/**
 * `node --import tsx bench/streaming-parse.ts [tgi|lmi-jsonlines|openai]`: the streaming parser and
 * the token timing recorder alone, in this process, on 64-token responses of one part per token
 * (the shapes the local generative server writes): the string parser with an event per token
 * (`createFramedStreamParser` + `record`) against the engine's parser on bytes (`read` + a sink),
 * and a raw read of the bytes. CPU µs per token over 20,000 responses after 3,000 of warm-up.
 * Not part of `npm run bench`: a figure to compare parser changes by (bench/RESULTS.md).
 */
import {
  createFramedStreamParser,
  createStreamParser,
  TokenTimingRecorder,
} from '../core/load-test/index.js';
import type { StreamEventSink } from '../core/load-test/index.js';

type Format = 'tgi' | 'lmi-jsonlines' | 'openai';
const format = (process.argv[2] ?? 'tgi') as Format;
const TOKENS = 64;

function piece(index: number): string {
  const last = index === TOKENS - 1;
  const text = ` tok${index}`;
  if (format === 'tgi') {
    return `data:${JSON.stringify({
      index: index + 1,
      token: { id: index, text, logprob: -0.5, special: false },
      generated_text: last ? 'all' : null,
      details: last
        ? { finish_reason: 'length', generated_tokens: TOKENS, input_length: 3, seed: null }
        : null,
    })}\n\n`;
  }
  if (format === 'lmi-jsonlines') {
    const token = { id: index, text, log_prob: -0.5 };
    return `${JSON.stringify(
      last
        ? { token, generated_text: 'all', details: { finish_reason: 'length', generated_tokens: TOKENS } }
        : { token },
    )}\n`;
  }
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm' };
  const chunk = `data: ${JSON.stringify({
    ...base,
    choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }],
    usage: null,
  })}\n\n`;
  if (!last) return chunk;
  const usage = { completion_tokens: TOKENS, prompt_tokens: 3 };
  return `${chunk}data: ${JSON.stringify({ ...base, choices: [], usage })}\n\ndata: [DONE]\n\n`;
}

const pieces = Array.from({ length: TOKENS }, (_, index) => Buffer.from(piece(index)));

function stringParser(): number {
  const parser = createFramedStreamParser(format);
  const recorder = new TokenTimingRecorder(0);
  for (const part of pieces) {
    const atUs = performance.now();
    for (const event of parser.push(part)) recorder.record(atUs, event);
  }
  for (const event of parser.end()) recorder.record(performance.now(), event);
  return recorder.finish(performance.now()).outputTokens;
}

function bytesParser(): number {
  const parser = createStreamParser(format);
  const recorder = new TokenTimingRecorder(0);
  let atUs = 0;
  const sink: StreamEventSink = {
    token(_bytes, start, end, special) {
      recorder.recordToken(atUs, end > start && !special);
    },
    event(event) {
      recorder.record(atUs, event);
    },
  };
  for (const part of pieces) {
    atUs = performance.now();
    parser.read(part, sink);
  }
  atUs = performance.now();
  parser.finish(sink);
  return recorder.finish(performance.now()).outputTokens;
}

function rawRead(): number {
  let bytes = 0;
  for (const part of pieces) bytes += part.byteLength;
  return bytes > 0 ? TOKENS : 0;
}

for (const [name, run] of [
  ['string parser, event per token', stringParser],
  ['bytes and scan', bytesParser],
  ['raw read', rawRead],
] as const) {
  for (let index = 0; index < 3_000; index++) run();
  const responses = 20_000;
  const start = process.cpuUsage();
  let tokens = 0;
  for (let index = 0; index < responses; index++) tokens += run();
  const used = process.cpuUsage(start);
  if (tokens !== responses * TOKENS) throw new Error(`${name} read ${tokens} tokens`);
  console.log(`${format} ${name}: ${((used.user + used.system) / tokens).toFixed(3)} µs CPU per token`);
}

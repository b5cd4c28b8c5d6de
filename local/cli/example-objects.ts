/**
 * The example model and payload that `examples/local.json` refers to. A committed example cannot
 * name a `file:///` path (it would be absolute), so it uses fixed URIs in the local artifacts bucket
 * and the CLI writes the objects there on first use: the model is generated in code, nothing is
 * downloaded.
 */
import type { ObjectStore } from '../../core/ports/index.js';
import {
  EXAMPLE_MODEL_SAMPLE_SIZE,
  generateExampleModel,
  generateGenerativeModel,
} from '../example-model/index.js';
import { LOCAL_ARTIFACTS_BUCKET } from '../environment/index.js';

export const EXAMPLE_MODEL_URI = `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-cnn/model.onnx`;
/** One sample as raw little-endian float32 (the model server's `application/octet-stream`). */
export const EXAMPLE_PAYLOAD_URI = `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-cnn/payload.bin`;

/**
 * The example generative model (local/example-model/generative-model.ts: one decoding step per
 * ONNX run, decoded token by token by the local model server) and one prompt for it, TGI's generate
 * request with `stream: true` (greedy, 32 new tokens), as `examples/local-generative.json` sends it.
 */
export const EXAMPLE_GENERATIVE_MODEL_URI = `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-lm/model.onnx`;
export const EXAMPLE_PROMPT_URI = `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-lm/prompt.json`;

export function examplePrompt(): Uint8Array {
  const request = {
    inputs: 'the model server reads the prompt and writes the next word',
    parameters: { max_new_tokens: 32, do_sample: false },
    stream: true,
  };
  return new TextEncoder().encode(JSON.stringify(request));
}

/**
 * The example prompt set (`examples/local-prompts.json`): JSON Lines of text prompts in the example
 * model's words (local/example-model/generative-vocabulary.ts; any other word reads as unknown),
 * eight short and four long, so that the two buckets' latencies differ by the prompt the server
 * reads (one model step per prompt word) before its first token.
 */
export const EXAMPLE_PROMPTS_URI = `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-lm/prompts.jsonl`;

const SHORT_PROMPTS = [
  'the model serves tokens',
  'each request waits in the queue',
  'a cheap instance is slow',
  'the server reads the prompt',
  'one worker sends many requests',
  'the cache grows with every token',
  'latency is under the target',
  'the compiler picks the best graph',
];

/** A long prompt: `words` words of the vocabulary's sentences, from `offset`. */
function longPrompt(offset: number, words: number): string {
  const pool = SHORT_PROMPTS.join(' and then ').split(' ');
  return Array.from({ length: words }, (_, index) => pool[(offset + index) % pool.length]).join(' ');
}

export function examplePrompts(): Uint8Array {
  const prompts = [
    ...SHORT_PROMPTS,
    longPrompt(0, 24),
    longPrompt(7, 28),
    longPrompt(13, 32),
    longPrompt(21, 36),
  ];
  const lines = prompts.map((prompt) => JSON.stringify({ prompt }));
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

/** One deterministic, non-trivial input sample of the example model ([1, 3, 32, 32] float32). */
export function examplePayload(): Uint8Array {
  return examplePayloadSetSample(0);
}

/**
 * The example CNN's payload set (`examples/local-quality.json`): eight inputs, each the example
 * payload's wave shifted by its index, so the output-quality guard compares answers to different
 * inputs.
 */
export const EXAMPLE_PAYLOAD_SET_URIS = Array.from(
  { length: 8 },
  (_, index) => `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-cnn/payload-set/${index}.bin`,
);

export function examplePayloadSetSample(index: number): Uint8Array {
  const sample = Float32Array.from({ length: EXAMPLE_MODEL_SAMPLE_SIZE }, (_, i) =>
    Math.sin(i * 0.37 + index),
  );
  return new Uint8Array(sample.buffer);
}

/**
 * Writes the example objects the input refers to and the store lacks. Returns the URIs written.
 * Looks for the URIs anywhere in the input, so it does not depend on the field layout.
 */
export async function seedExampleObjects(store: ObjectStore, input: unknown): Promise<string[]> {
  const text = JSON.stringify(input);
  const seeds: [string, () => Uint8Array, string][] = [
    [EXAMPLE_MODEL_URI, () => generateExampleModel(), 'application/octet-stream'],
    [EXAMPLE_PAYLOAD_URI, examplePayload, 'application/octet-stream'],
    [EXAMPLE_GENERATIVE_MODEL_URI, () => generateGenerativeModel(), 'application/octet-stream'],
    [EXAMPLE_PROMPT_URI, examplePrompt, 'application/json'],
    [EXAMPLE_PROMPTS_URI, examplePrompts, 'application/jsonl'],
    ...EXAMPLE_PAYLOAD_SET_URIS.map((uri, index): [string, () => Uint8Array, string] => [
      uri,
      () => examplePayloadSetSample(index),
      'application/octet-stream',
    ]),
  ];
  const written: string[] = [];
  for (const [uri, bytes, contentType] of seeds) {
    if (!text.includes(JSON.stringify(uri)) || (await store.head(uri)) !== undefined) continue;
    await store.putBytes(uri, bytes(), contentType);
    written.push(uri);
  }
  return written;
}

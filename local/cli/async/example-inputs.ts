/**
 * The objects the local async examples refer to, generated in code and written on first use, like
 * the optimization examples' objects (`local/cli/example-objects.ts`): nothing is downloaded.
 * - `examples/local-async.json`: the example CNN packaged as SageMaker expects it (`model.tar.gz`
 *   with `model.onnx` at its root) and 20 inputs in its input format (one [1, 3, 32, 32] float32
 *   sample each, raw little-endian: the model server's `application/octet-stream`).
 * - `examples/local-async-generative.json`: the example generative model packaged the same way and
 *   12 prompts, each TGI's generate request (not streamed: an async result is a whole answer) with
 *   `"details": true`, so each answer carries the container's token counts, and a different
 *   `max_new_tokens`, so the inputs' answers differ in length as real prompts' do.
 */
import type { ObjectStore } from '../../../core/ports/index.js';
import { buildModelArchive } from '../../../core/deployment/index.js';
import {
  EXAMPLE_MODEL_SAMPLE_SIZE,
  generateExampleModel,
  generateGenerativeModel,
} from '../../example-model/index.js';
import { LOCAL_ARTIFACTS_BUCKET } from '../../environment/index.js';

export const EXAMPLE_ARCHIVE_URI = `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-cnn/model.tar.gz`;
export const EXAMPLE_INPUT_PREFIX = `s3://${LOCAL_ARTIFACTS_BUCKET}/inputs/example-cnn/`;
export const EXAMPLE_INPUT_COUNT = 20;

export const EXAMPLE_GENERATIVE_ARCHIVE_URI = `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-lm/model.tar.gz`;
export const EXAMPLE_PROMPT_PREFIX = `s3://${LOCAL_ARTIFACTS_BUCKET}/inputs/example-lm/`;
export const EXAMPLE_PROMPT_COUNT = 12;

/** Input `index` (0-based): a deterministic sample, different for each index. */
export function exampleInput(index: number): Uint8Array {
  const sample = Float32Array.from({ length: EXAMPLE_MODEL_SAMPLE_SIZE }, (_, i) =>
    Math.sin(i * 0.37 + index * 0.5),
  );
  return new Uint8Array(sample.buffer);
}

export function exampleInputUri(index: number): string {
  return `${EXAMPLE_INPUT_PREFIX}input-${String(index + 1).padStart(4, '0')}.bin`;
}

const PROMPT_TEXTS = [
  'summarize the report of the run',
  'the model server reads the prompt and writes the next word',
  'write a short note about the endpoint',
  'list what the load test measured',
];

/** Prompt `index` (0-based): TGI's generate request, greedy, 8 to 30 new tokens. */
export function examplePromptInput(index: number): Uint8Array {
  const request = {
    inputs: PROMPT_TEXTS[index % PROMPT_TEXTS.length],
    parameters: { max_new_tokens: 8 + ((index * 2) % 24), do_sample: false, details: true },
  };
  return new TextEncoder().encode(JSON.stringify(request));
}

export function examplePromptUri(index: number): string {
  return `${EXAMPLE_PROMPT_PREFIX}prompt-${String(index + 1).padStart(4, '0')}.json`;
}

/** One example: a packaged model and the inputs under a prefix. */
interface AsyncExample {
  readonly archiveUri: string;
  readonly modelBytes: () => Uint8Array;
  readonly inputPrefix: string;
  readonly inputCount: number;
  readonly inputUri: (index: number) => string;
  readonly input: (index: number) => Uint8Array;
  readonly contentType: string;
}

const EXAMPLES: readonly AsyncExample[] = [
  {
    archiveUri: EXAMPLE_ARCHIVE_URI,
    modelBytes: generateExampleModel,
    inputPrefix: EXAMPLE_INPUT_PREFIX,
    inputCount: EXAMPLE_INPUT_COUNT,
    inputUri: exampleInputUri,
    input: exampleInput,
    contentType: 'application/octet-stream',
  },
  {
    archiveUri: EXAMPLE_GENERATIVE_ARCHIVE_URI,
    modelBytes: generateGenerativeModel,
    inputPrefix: EXAMPLE_PROMPT_PREFIX,
    inputCount: EXAMPLE_PROMPT_COUNT,
    inputUri: examplePromptUri,
    input: examplePromptInput,
    contentType: 'application/json',
  },
];

/**
 * Writes what the input refers to and the store lacks: an example's archive, and its inputs when
 * nothing is under their prefix yet. Returns the URIs written. Looks for the URIs anywhere in the
 * input.
 */
export async function seedAsyncExampleObjects(store: ObjectStore, input: unknown): Promise<string[]> {
  const text = JSON.stringify(input);
  const written: string[] = [];
  for (const example of EXAMPLES) {
    if (
      text.includes(JSON.stringify(example.archiveUri)) &&
      (await store.head(example.archiveUri)) === undefined
    ) {
      const archive = await buildModelArchive({
        modelFileName: 'model.onnx',
        modelBytes: example.modelBytes(),
      });
      await store.putBytes(example.archiveUri, archive, 'application/gzip');
      written.push(example.archiveUri);
    }
    if (
      text.includes(JSON.stringify(example.inputPrefix)) &&
      (await store.list(example.inputPrefix, 1)).uris.length === 0
    ) {
      for (let index = 0; index < example.inputCount; index += 1) {
        const uri = example.inputUri(index);
        await store.putBytes(uri, example.input(index), example.contentType);
        written.push(uri);
      }
    }
  }
  return written;
}

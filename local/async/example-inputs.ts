/**
 * The objects `examples/local-async.json` refers to: the example model packaged as SageMaker
 * expects it (`model.tar.gz` with `model.onnx` at its root) and 20 inputs in the example model's
 * input format (one [1, 3, 32, 32] float32 sample each, raw little-endian: the model server's
 * `application/octet-stream`). Generated in code and written on first use, like the optimization
 * example's objects (`local/cli/example-objects.ts`): nothing is downloaded.
 */
import type { ObjectStore } from '../../handlers/ports.js';
import { buildModelArchive } from '../../handlers/shared/model-archive.js';
import { EXAMPLE_MODEL_SAMPLE_SIZE, generateExampleModel } from '../example-model/example-model.js';
import { LOCAL_ARTIFACTS_BUCKET } from '../workflow-environment.js';

export const EXAMPLE_ARCHIVE_URI = `s3://${LOCAL_ARTIFACTS_BUCKET}/models/example-cnn/model.tar.gz`;
export const EXAMPLE_INPUT_PREFIX = `s3://${LOCAL_ARTIFACTS_BUCKET}/inputs/example-cnn/`;
export const EXAMPLE_INPUT_COUNT = 20;

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

/**
 * Writes what the input refers to and the store lacks: the archive, and the inputs when nothing is
 * under their prefix yet. Returns the URIs written. Looks for the URIs anywhere in the input.
 */
export async function seedAsyncExampleObjects(store: ObjectStore, input: unknown): Promise<string[]> {
  const text = JSON.stringify(input);
  const written: string[] = [];
  if (
    text.includes(JSON.stringify(EXAMPLE_ARCHIVE_URI)) &&
    (await store.head(EXAMPLE_ARCHIVE_URI)) === undefined
  ) {
    const archive = await buildModelArchive({
      modelFileName: 'model.onnx',
      modelBytes: generateExampleModel(),
    });
    await store.putBytes(EXAMPLE_ARCHIVE_URI, archive, 'application/gzip');
    written.push(EXAMPLE_ARCHIVE_URI);
  }
  if (
    text.includes(JSON.stringify(EXAMPLE_INPUT_PREFIX)) &&
    (await store.list(EXAMPLE_INPUT_PREFIX, 1)).uris.length === 0
  ) {
    for (let index = 0; index < EXAMPLE_INPUT_COUNT; index += 1) {
      const uri = exampleInputUri(index);
      await store.putBytes(uri, exampleInput(index), 'application/octet-stream');
      written.push(uri);
    }
  }
  return written;
}

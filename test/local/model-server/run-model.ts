/**
 * Runs a model outside jest's module sandbox. onnxruntime-node builds output tensors with the
 * host's Float32Array, which fails `instanceof` checks inside jest's VM context ("A float32 tensor's
 * data must be type of Float32Array"), so tests run models in a worker thread, as the server does.
 */
import { InferenceWorkerPool } from '../../../local/model-server/worker-pool.js';
import type { BatchOutput } from '../../../local/model-server/worker-pool.js';

/** Runs `batchSize` samples through the model at `modelPath` (graph optimizations disabled). */
export async function runModel(
  modelPath: string,
  samples: Float32Array,
  batchSize: number,
): Promise<BatchOutput> {
  const pool = await InferenceWorkerPool.start({ modelPath, intraOpThreads: 1, spinWait: false }, 1);
  try {
    return await pool.run(samples.slice(), batchSize);
  } finally {
    await pool.close();
  }
}

/** A deterministic, non-trivial input: `count` samples of `sampleSize` values. */
export function sampleInput(count: number, sampleSize: number, phase = 0): Float32Array {
  return Float32Array.from({ length: count * sampleSize }, (_, i) => Math.sin(i * 0.37 + phase));
}

/**
 * Times a model's reference inference in a worker thread (local/cli/calibration.ts): the model as
 * written (graph optimizations off, as the server serves an uncompiled candidate), one intra-op
 * thread, inputs of the given shapes filled with a constant, one inference at a time. A thread of
 * its own, as the server's inference workers are: ONNX Runtime's tensors must come from the realm
 * that loaded it, which a test runner's module sandbox is not.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { sessionOptionsOf } from './session-options.js';

export interface ReferenceTimingRequest {
  readonly model: Uint8Array;
  readonly inputShape: Readonly<Record<string, readonly number[]>>;
  readonly warmUpInferences: number;
  readonly minInferences: number;
  readonly maxInferences: number;
  readonly windowMs: number;
}

export type ReferenceTimingReply =
  | { readonly type: 'timed'; readonly timingsMs: readonly number[] }
  | { readonly type: 'failed'; readonly reason: string };

async function timeInferences(request: ReferenceTimingRequest): Promise<number[]> {
  const session = await InferenceSession.create(
    request.model,
    sessionOptionsOf({ intraOpThreads: 1, spinWait: false }),
  );
  try {
    const feeds = Object.fromEntries(
      Object.entries(request.inputShape).map(([name, shape]) => {
        const size = shape.reduce((product, dimension) => product * dimension, 1);
        return [name, new Tensor('float32', new Float32Array(size).fill(0.5), [...shape])];
      }),
    );
    for (let i = 0; i < request.warmUpInferences; i += 1) await session.run(feeds);
    const timings: number[] = [];
    const started = performance.now();
    while (
      timings.length < request.minInferences ||
      (timings.length < request.maxInferences && performance.now() - started < request.windowMs)
    ) {
      const before = performance.now();
      await session.run(feeds);
      timings.push(performance.now() - before);
    }
    return timings;
  } finally {
    await session.release();
  }
}

const port = parentPort;
if (port !== null) {
  timeInferences(workerData as ReferenceTimingRequest).then(
    (timingsMs) => {
      port.postMessage({ type: 'timed', timingsMs } satisfies ReferenceTimingReply);
    },
    (error: unknown) => {
      port.postMessage({
        type: 'failed',
        reason: error instanceof Error ? error.message : String(error),
      } satisfies ReferenceTimingReply);
    },
  );
}

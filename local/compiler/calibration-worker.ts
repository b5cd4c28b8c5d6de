/**
 * Body of the calibration thread (quantize.ts): runs the calibration model over each input and
 * replies with the range every named activation took. In a worker thread, as the model server runs
 * its sessions: onnxruntime-node builds output tensors with the thread's own Float32Array.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { InferenceSession, Tensor } from 'onnxruntime-node';

import type { CalibrationReply, CalibrationRequest } from './calibration-protocol.js';

const port = parentPort;
if (port === null) throw new Error('calibration-worker.ts must run in a worker thread');

async function calibrate(request: CalibrationRequest): Promise<CalibrationReply> {
  const session = await InferenceSession.create(request.modelPath, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 1,
  });
  // Each range holds 0, so that 0 (padding, a Relu's floor) quantizes exactly.
  const ranges = new Map<string, [number, number]>(request.activations.map((name) => [name, [0, 0]]));
  try {
    for (const sample of request.samples) {
      const feeds = Object.fromEntries(
        sample.map((input) => [input.name, new Tensor('float32', input.values, input.dims)]),
      );
      const outputs = await session.run(feeds);
      const values = new Map<string, ArrayLike<number>>([
        ...sample.map((input): [string, ArrayLike<number>] => [input.name, input.values]),
        ...Object.entries(outputs).map(([name, tensor]): [string, ArrayLike<number>] => [
          name,
          tensor.data as Float32Array,
        ]),
      ]);
      for (const [name, range] of ranges) {
        const data = values.get(name);
        if (data === undefined) continue;
        for (let index = 0; index < data.length; index += 1) {
          const value = data[index] ?? 0;
          if (value < range[0]) range[0] = value;
          if (value > range[1]) range[1] = value;
        }
      }
    }
  } finally {
    await session.release();
  }
  return { type: 'ranges', ranges: [...ranges] };
}

calibrate(workerData as CalibrationRequest).then(
  (reply) => {
    port.postMessage(reply);
  },
  (error: unknown) => {
    port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  },
);

/**
 * Body of one inference worker thread: loads its own ONNX Runtime session and runs the batches the
 * main thread sends, one at a time.
 * Its session options: session-options.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { InferenceSession, Tensor } from 'onnxruntime-node';

import { describeModel } from './model-signature.js';
import { sessionOptionsOf } from './session-options.js';
import type { ModelSignature } from './model-signature.js';
import type { RunRequest, WorkerReply, WorkerSetup } from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('inference-worker.ts must run in a worker thread');
const reply = (message: WorkerReply, transfer: ArrayBuffer[] = []) => {
  port.postMessage(message, transfer);
};

async function loadSession(
  setup: WorkerSetup,
): Promise<{ session: InferenceSession; signature: ModelSignature }> {
  const session = await InferenceSession.create(setup.modelPath, sessionOptionsOf(setup));
  return { session, signature: describeModel(session.inputMetadata, session.outputMetadata) };
}

async function runBatch(
  session: InferenceSession,
  signature: ModelSignature,
  request: RunRequest,
): Promise<void> {
  try {
    const feeds = {
      [signature.input.name]: new Tensor('float32', request.input, [
        request.batchSize,
        ...signature.input.sampleShape,
      ]),
    };
    const results = await session.run(feeds, [signature.output.name]);
    const tensor = results[signature.output.name];
    if (tensor?.type !== 'float32') {
      throw new Error(
        `Output "${signature.output.name}" is ${tensor === undefined ? 'missing' : tensor.type}: expected float32`,
      );
    }
    // Copy into a buffer of our own so it can be transferred to the main thread without a second copy.
    const output = new Float32Array(tensor.data as Float32Array);
    reply({ type: 'result', id: request.id, output, dims: [...tensor.dims] }, [output.buffer]);
  } catch (error) {
    reply({
      type: 'run-failed',
      id: request.id,
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

try {
  const { session, signature } = await loadSession(workerData as WorkerSetup);
  port.on('message', (request: RunRequest) => {
    void runBatch(session, signature, request);
  });
  reply({ type: 'ready', signature });
} catch (error) {
  reply({
    type: 'load-failed',
    errorName: error instanceof Error ? error.name : 'Error',
    message: error instanceof Error ? error.message : String(error),
  });
}

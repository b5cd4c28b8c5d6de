/**
 * Body of the generative server's worker thread: loads the model's ONNX Runtime session and runs
 * the decoding steps the main thread sends, one at a time. A worker thread for the same reason as
 * the vision server's (worker-pool.ts): `session.run` blocks the thread that calls it, and the main
 * thread must keep writing tokens and reading requests while a step runs.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { InferenceSession, Tensor } from 'onnxruntime-node';

import { GENERATIVE_MODEL_SIGNATURE } from '../../example-model/index.js';
import { sessionOptionsOf } from '../session-options.js';
import { describeGenerativeModel } from './generative-model-check.js';
import type { StepReply, StepRequest, StepWorkerSetup } from './step-protocol.js';

const port = parentPort;
if (port === null) throw new Error('step-worker.ts must run in a worker thread');
const reply = (message: StepReply, transfer: ArrayBuffer[] = []) => {
  port.postMessage(message, transfer);
};

async function runStep(session: InferenceSession, hiddenSize: number, request: StepRequest): Promise<void> {
  const { tokenIds, state, logits, nextState } = GENERATIVE_MODEL_SIGNATURE;
  const size = request.tokens.length;
  try {
    const results = await session.run({
      [tokenIds]: new Tensor('int64', request.tokens, [size]),
      [state]: new Tensor('float32', request.states, [size, hiddenSize]),
    });
    const scores = results[logits];
    const states = results[nextState];
    if (scores?.type !== 'float32' || states?.type !== 'float32') {
      throw new Error(`expected float32 "${logits}" and "${nextState}" outputs`);
    }
    // Copies of our own, so they can be transferred to the main thread without a second copy.
    const logitsCopy = new Float32Array(scores.data as Float32Array);
    const statesCopy = new Float32Array(states.data as Float32Array);
    reply({ type: 'stepped', id: request.id, logits: logitsCopy, nextStates: statesCopy }, [
      logitsCopy.buffer,
      statesCopy.buffer,
    ]);
  } catch (error) {
    reply({
      type: 'step-failed',
      id: request.id,
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

try {
  const setup = workerData as StepWorkerSetup;
  const session = await InferenceSession.create(setup.modelPath, sessionOptionsOf(setup));
  const { hiddenSize } = describeGenerativeModel(session.inputMetadata, session.outputMetadata);
  port.on('message', (request: StepRequest) => {
    void runStep(session, hiddenSize, request);
  });
  reply({ type: 'ready', hiddenSize });
} catch (error) {
  reply({
    type: 'load-failed',
    errorName: error instanceof Error ? error.name : 'Error',
    message: error instanceof Error ? error.message : String(error),
  });
}

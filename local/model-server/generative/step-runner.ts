import type { Worker } from 'node:worker_threads';

import { ModelExecutionError } from '../errors.js';
import { spawnWorkerModule, waitForWorkerLoad } from '../worker-pool.js';
import type { StepReply, StepRequest, StepWorkerSetup } from './step-protocol.js';

/** One decoding step's results, rows in the order of the request's sequences. */
export interface StepOutput {
  readonly logits: Float32Array;
  readonly nextStates: Float32Array;
}

/** Runs decoding steps of the generative model; a fake implements it in unit tests. */
export interface StepRunner {
  readonly hiddenSize: number;
  /** False once the model can no longer run (its worker died): /ping then answers 503. */
  readonly isAlive: boolean;
  /** One model run: `tokens[i]` and the i-th state row in, logits and next state rows out. */
  step(tokens: BigInt64Array, states: Float32Array): Promise<StepOutput>;
  close(): Promise<void>;
}

// As the vision server's workers (worker-pool.ts): a worker silent this long at start-up is stuck.

/** The step runner over one worker thread (step-worker.ts), one step at a time. */
export class WorkerStepRunner implements StepRunner {
  private nextId = 1;
  private pending:
    { readonly id: number; resolve(output: StepOutput): void; reject(error: Error): void } | undefined;
  private alive = true;

  private constructor(
    private readonly worker: Worker,
    readonly hiddenSize: number,
  ) {
    worker.on('message', (message: StepReply) => {
      const pending = this.pending;
      if (pending === undefined || !('id' in message) || message.id !== pending.id) return;
      this.pending = undefined;
      if (message.type === 'stepped')
        pending.resolve({ logits: message.logits, nextStates: message.nextStates });
      else pending.reject(new ModelExecutionError(message.message));
    });
    const retire = (reason: string) => {
      this.alive = false;
      const pending = this.pending;
      this.pending = undefined;
      pending?.reject(new ModelExecutionError(`The decoding worker stopped: ${reason}`));
    };
    worker.on('error', (error) => {
      retire(error.message);
    });
    worker.on('exit', (code) => {
      retire(`exit code ${code}`);
    });
  }

  static async start(setup: StepWorkerSetup): Promise<WorkerStepRunner> {
    const worker = spawnWorkerModule('./generative/step-worker', setup);
    try {
      const hiddenSize = await waitForWorkerLoad(worker, {
        name: 'The decoding worker',
        modelPath: setup.modelPath,
        readyOf: (reply: StepReply) => (reply.type === 'ready' ? reply.hiddenSize : undefined),
      });
      return new WorkerStepRunner(worker, hiddenSize);
    } catch (error) {
      await worker.terminate();
      throw error;
    }
  }

  get isAlive(): boolean {
    return this.alive;
  }

  step(tokens: BigInt64Array, states: Float32Array): Promise<StepOutput> {
    if (!this.alive) return Promise.reject(new ModelExecutionError('The decoding worker is not running'));
    if (this.pending !== undefined) {
      return Promise.reject(
        new ModelExecutionError('A step is already running: the scheduler over-dispatched'),
      );
    }
    const id = this.nextId++;
    return new Promise<StepOutput>((resolve, reject) => {
      this.pending = { id, resolve, reject };
      const request: StepRequest = { type: 'step', id, tokens, states };
      this.worker.postMessage(request, [tokens.buffer as ArrayBuffer, states.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.alive = false;
    await this.worker.terminate();
  }
}

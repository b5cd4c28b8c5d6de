/** Messages between the server's main thread and its inference worker threads. */
import type { ModelSignature } from './model-signature.js';

export interface WorkerSetup {
  readonly modelPath: string;
  readonly intraOpThreads: number;
  readonly spinWait: boolean;
}

export interface RunRequest {
  readonly type: 'run';
  readonly id: number;
  /** `batchSize` samples, concatenated; its buffer is transferred, not copied. */
  readonly input: Float32Array;
  readonly batchSize: number;
}

export type WorkerReply =
  | { readonly type: 'ready'; readonly signature: ModelSignature }
  | { readonly type: 'load-failed'; readonly errorName: string; readonly message: string }
  | {
      readonly type: 'result';
      readonly id: number;
      readonly output: Float32Array;
      readonly dims: readonly number[];
    }
  | { readonly type: 'run-failed'; readonly id: number; readonly message: string };

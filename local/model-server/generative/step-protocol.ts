/** Messages between the generative server's main thread and its decoding-step worker thread. */

export interface StepWorkerSetup {
  readonly modelPath: string;
  readonly intraOpThreads: number;
  readonly spinWait: boolean;
}

export interface StepRequest {
  readonly type: 'step';
  readonly id: number;
  /** The token each sequence feeds, one per row; its buffer is transferred. */
  readonly tokens: BigInt64Array;
  /** Each sequence's state, rows of `hiddenSize`, concatenated; its buffer is transferred. */
  readonly states: Float32Array;
}

export type StepReply =
  | { readonly type: 'ready'; readonly hiddenSize: number }
  | { readonly type: 'load-failed'; readonly errorName: string; readonly message: string }
  | {
      readonly type: 'stepped';
      readonly id: number;
      readonly logits: Float32Array;
      readonly nextStates: Float32Array;
    }
  | { readonly type: 'step-failed'; readonly id: number; readonly message: string };

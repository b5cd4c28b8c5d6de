/** Messages between quantize.ts and its calibration thread (calibration-worker.ts). */

export interface CalibrationInput {
  readonly name: string;
  readonly values: Float32Array;
  readonly dims: readonly number[];
}

export interface CalibrationRequest {
  /** The model with every activation to calibrate declared as an output. */
  readonly modelPath: string;
  readonly activations: readonly string[];
  /** One entry per calibration sample: a value for each graph input. */
  readonly samples: readonly (readonly CalibrationInput[])[];
}

export type CalibrationReply =
  | { readonly type: 'ranges'; readonly ranges: readonly (readonly [string, readonly [number, number]])[] }
  | { readonly type: 'failed'; readonly message: string };

import { type InputIssue, InvalidRunInputError } from '../../../../core/contracts/errors.js';

/** A small valid optimization run input, with fields replaced or added by `overrides`. */
export function minimalRunInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: { artifactUri: 's3://mso-artifacts/models/cnn/model.onnx', framework: 'onnx' },
    payload: { uri: 's3://mso-artifacts/models/cnn/payload.json' },
    candidates: [{ instanceType: 'ml.c5.xlarge' }],
    loadPlan: { steps: [1] },
    sla: { p95LatencyMs: 100 },
    ...overrides,
  };
}

/** The example CNN (ONNX, one 3×32×32 input) compiled as `compilation` says, served by `candidates`. */
export function compiledCnnRunInput(
  compilation: Record<string, unknown>,
  candidates: readonly Record<string, unknown>[],
): Record<string, unknown> {
  return {
    model: {
      artifactUri: 's3://user-models/cnn/model.onnx',
      framework: 'onnx',
      frameworkVersion: '1.7.0',
      inputShape: { input: [1, 3, 32, 32] },
    },
    payload: { uri: 's3://user-models/cnn/payload.bin', contentType: 'application/octet-stream' },
    compilation,
    candidates,
    loadPlan: { steps: [1] },
    sla: { p95LatencyMs: 100 },
  };
}

/** The issues an input check refuses with, or none when `parse` accepts. */
export function issuesOf(parse: () => unknown): readonly InputIssue[] {
  try {
    parse();
    return [];
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
}

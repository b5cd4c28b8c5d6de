/**
 * The example CNN's answers over a fixed payload set, and the pair the output-quality guard judges:
 * what the compiler suites compare a compiled model with the uncompiled one by.
 */
import type { TensorAnswer } from '../../../../core/quality/index.js';
import { EXAMPLE_MODEL_SAMPLE_SIZE } from '../../../../local/example-model/example-model.js';
import { runModel, sampleInput } from '../../model-server/run-model.js';

const PAYLOADS = 8;
const CLASSES = 10;
/** The tolerance examples/local-quality.json states: |candidate − reference| ≤ 0.05 + 1% × |reference|. */
export const TOLERANCE = {
  kind: 'tensor',
  maxAbsoluteDifference: 0.05,
  maxRelativeDifference: 0.01,
} as const;

/** One input per payload, each a different wave in [-1, 1], as rows of one batch. */
function payloadSet(): Float32Array {
  const set = new Float32Array(PAYLOADS * EXAMPLE_MODEL_SAMPLE_SIZE);
  for (let index = 0; index < PAYLOADS; index += 1) {
    set.set(sampleInput(1, EXAMPLE_MODEL_SAMPLE_SIZE, index), index * EXAMPLE_MODEL_SAMPLE_SIZE);
  }
  return set;
}

/** The model's logits for each payload, one answer per payload. */
export async function answersOf(modelPath: string): Promise<TensorAnswer[]> {
  const { output } = await runModel(modelPath, payloadSet(), PAYLOADS);
  return Array.from({ length: PAYLOADS }, (_, row) => ({
    shape: [1, CLASSES],
    values: Float64Array.from(output.subarray(row * CLASSES, (row + 1) * CLASSES)),
  }));
}

/** The judged pair: the uncompiled model's answers and the candidate's, input by input. */
export function judgedPair(
  reference: readonly TensorAnswer[],
  candidate: readonly TensorAnswer[],
  candidateId: string,
) {
  return {
    candidateId,
    referenceId: 'uncompiled',
    reference: {
      outcome: 'answered' as const,
      inputs: reference.map((answer, index) => ({ inputId: `payload-${index}`, answers: [answer] })),
    },
    candidate: candidate.map((answer, index) => ({ inputId: `payload-${index}`, answer })),
    quality: { worstExamples: 3 },
  };
}

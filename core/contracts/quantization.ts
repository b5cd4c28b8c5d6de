import { z } from 'zod';

import { isNeuronTarget } from './compiler-options.js';

/**
 * A compilation target's int8 quantization (`compilation.quantization`), local mode only: the
 * local compiler rewrites the model into ONNX's QDQ form (QuantizeLinear → DequantizeLinear around
 * each operator, https://onnxruntime.ai/docs/performance/model-optimizations/quantization.html)
 * and ONNX Runtime's optimizer fuses it into its int8 kernels (QLinearConv, QGemm, QLinearAdd), so
 * the artifact really runs in int8 and really answers with int8's error.
 *
 * Static quantization fixes each activation's scale from calibration: the range the activations
 * took over a calibration set. The calibration inputs here are seeded samples drawn uniformly from
 * `calibrationRange`, the range the serving inputs are expected to lie in (after their
 * preprocessing). A range that does not match what the endpoint is sent (pixels scaled to [0, 1]
 * while the payloads are normalized to [-1, 1]) clips what it did not see: a fast model that lost
 * its quality, which the output-quality guard is there to catch.
 *
 * SageMaker Neo has no such option (its CompilerOptions choose code generation, and a Neuron
 * target's precision comes from its flags), so an AWS run refuses it at planning.
 */

export const QUANTIZATION_LIMITS = {
  /** Calibration samples: enough for every activation's range to settle, each one model run. */
  maxCalibrationSamples: 256,
} as const;

const RANGE_EXPECTED = '[min, max]: the range the served inputs lie in, min below max, such as [-1, 1]';

export const quantizationSchema = z.strictObject({
  type: z.literal('int8', { message: 'int8 (weights int8 per output channel, activations uint8)' }),
  /** The range each calibration input's elements are drawn from: what the model is expected to be sent. */
  calibrationRange: z
    .tuple([z.number(), z.number()], { message: RANGE_EXPECTED })
    .refine(([min, max]) => Number.isFinite(min) && Number.isFinite(max) && min < max, {
      message: RANGE_EXPECTED,
    }),
  calibrationSamples: z
    .int()
    .min(1, { message: 'at least 1 calibration sample' })
    .max(QUANTIZATION_LIMITS.maxCalibrationSamples, {
      message: `at most ${QUANTIZATION_LIMITS.maxCalibrationSamples} calibration samples`,
    })
    .default(16),
});

export type Quantization = z.output<typeof quantizationSchema>;

interface Issue {
  readonly path: PropertyKey[];
  readonly message: string;
  readonly given: unknown;
}

/** A quantization names a listed target, and not a Neuron one (its precision comes from its flags). */
export function quantizationIssues(compilation: {
  readonly targets: readonly string[];
  readonly quantization?: Readonly<Record<string, unknown>> | undefined;
}): Issue[] {
  return Object.keys(compilation.quantization ?? {}).flatMap((target): Issue[] => {
    const path = ['compilation', 'quantization', target];
    if (!compilation.targets.includes(target)) {
      return [
        {
          path,
          message: `a target listed in compilation.targets (${compilation.targets.join(', ') || 'none listed'})`,
          given: target,
        },
      ];
    }
    if (isNeuronTarget(target)) {
      return [
        {
          path,
          message:
            'a CPU or GPU target: a Neuron target computes in the precision its compiler flags choose (compilation.compilerOptions)',
          given: target,
        },
      ];
    }
    return [];
  });
}

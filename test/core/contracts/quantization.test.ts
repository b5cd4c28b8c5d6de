import { describe, expect, it } from '@jest/globals';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';
import { compiledCnnRunInput, issuesOf } from './support/run-input-issues.js';

/** The example CNN compiled for a CPU target with an int8 quantization. */
function input(quantization: Record<string, unknown>, targets = ['ml_c5', 'ml_inf2']): unknown {
  return compiledCnnRunInput({ targets, quantization }, [
    { id: 'c5', instanceType: 'ml.c5.large' },
    { id: 'c5-int8', instanceType: 'ml.c5.large', compiledFor: 'ml_c5' },
  ]);
}

describe('run input: compilation.quantization', () => {
  it('accepts an int8 quantization of a listed CPU target, calibrated on 16 inputs unless told', () => {
    // Act
    const parsed = parseOrThrow(
      runInputSchema,
      input({ ml_c5: { type: 'int8', calibrationRange: [-1, 1] } }),
    );

    // Assert
    expect(parsed.compilation.quantization).toEqual({
      ml_c5: { type: 'int8', calibrationRange: [-1, 1], calibrationSamples: 16 },
    });
  });

  it('fails when the calibration range is empty or reversed, naming the field', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(runInputSchema, input({ ml_c5: { type: 'int8', calibrationRange: [1, 0] } })),
    );

    // Assert
    expect(issues).toEqual([
      expect.objectContaining({
        field: 'compilation.quantization.ml_c5.calibrationRange',
        expected: '[min, max]: the range the served inputs lie in, min below max, such as [-1, 1]',
      }),
    ]);
  });

  it('fails when the quantized target is not in compilation.targets', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(runInputSchema, input({ ml_m5: { type: 'int8', calibrationRange: [-1, 1] } })),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.quantization.ml_m5',
        given: '"ml_m5"',
        expected: 'a target listed in compilation.targets (ml_c5, ml_inf2)',
      },
    ]);
  });

  it('fails when a Neuron target is quantized: its precision comes from its compiler flags', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(runInputSchema, input({ ml_inf2: { type: 'int8', calibrationRange: [-1, 1] } })),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.quantization.ml_inf2',
        given: '"ml_inf2"',
        expected:
          'a CPU or GPU target: a Neuron target computes in the precision its compiler flags choose (compilation.compilerOptions)',
      },
    ]);
  });
});

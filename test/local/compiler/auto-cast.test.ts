import { describe, expect, it } from '@jest/globals';

import type { AutoCastType } from '../../../core/contracts/compiler-options.js';

import { CompilationFailedError } from '../../../core/contracts/errors.js';
import { autoCastModel, roundToType } from '../../../local/compiler/auto-cast.js';
import { generateExampleModel } from '../../../local/example-model/example-model.js';
import { generateGenerativeModel } from '../../../local/example-model/generative-model.js';
import { onnx } from '../../../local/example-model/onnx-builder.js';

describe('roundToType', () => {
  it.each([
    // 1 + 2^-8 is halfway between two BF16 values (7 mantissa bits): ties go to the even one, 1.
    [1 + 2 ** -8, 'bf16', 1],
    [1 + 3 * 2 ** -8, 'bf16', 1 + 2 ** -6],
    [1 + 2 ** -11, 'fp16', 1],
    [65504, 'fp16', 65504],
    [70000, 'fp16', Infinity],
    [2 ** -24, 'fp16', 2 ** -24],
    [1 + 2 ** -11, 'tf32', 1],
    [1 + 2 ** -10, 'tf32', 1 + 2 ** -10],
    // FP8 E4M3: 3 mantissa bits, so 1.0625 ties to 1 and 1.1875 to 1.25; no infinity, saturates at 448.
    [1.0625, 'fp8_e4m3', 1],
    [1.1875, 'fp8_e4m3', 1.25],
    [-0.3, 'fp8_e4m3', -0.3125],
    [1000, 'fp8_e4m3', 448],
    [2 ** -9, 'fp8_e4m3', 2 ** -9],
    [0, 'fp8_e4m3', 0],
  ] as [number, AutoCastType, number][])('rounds %d to %s as %d', (value, type, expected) => {
    // Act
    const rounded = roundToType(value, type);

    // Assert
    expect(rounded).toBe(expected);
  });
});

function graphOf(bytes: Uint8Array) {
  const model = onnx.ModelProto.decode(bytes);
  return { model, nodes: model.graph?.node ?? [] };
}

describe('autoCastModel', () => {
  it('returns the source untouched when nothing is cast', () => {
    // Prepare
    const source = generateExampleModel();

    // Act
    const result = autoCastModel(source, { mode: 'none', type: 'bf16' });

    // Assert: the very same bytes (an element-wise comparison of 1.6 MB would cost seconds of CPU).
    expect(result.bytes).toBe(source);
    expect(result).toEqual({ bytes: expect.any(Uint8Array), roundedWeights: 0, castActivations: 0 });
  });

  it('casts only the operands of the matrix-multiply operators with matmult, biases left in FP32', () => {
    // Act
    const result = autoCastModel(generateExampleModel(), { mode: 'matmult', type: 'fp16' });

    // Assert: 18 convolutions and 2 Gemms, each with one weight and one activation operand.
    expect(result.roundedWeights).toBe(20);
    expect(result.castActivations).toBe(20);
    const { nodes } = graphOf(result.bytes);
    const casts = nodes.filter((node) => node.opType === 'Cast');
    expect(casts).toHaveLength(40);
    expect(Number(casts[0]?.attribute?.[0]?.i)).toBe(onnx.TensorProto.DataType.FLOAT16);
    const gemm = nodes.find((node) => node.opType === 'Gemm');
    expect(gemm?.input?.[2]).toBe('fc19.bias');
  });

  it('casts the inputs of every arithmetic operator with all, and raises the opset for FP8', () => {
    // Act
    const result = autoCastModel(generateExampleModel(), { mode: 'all', type: 'fp8_e4m3' });

    // Assert
    expect(result.opsetRaisedTo).toBe(19);
    expect(result.castActivations).toBeGreaterThan(20);
    const { model, nodes } = graphOf(result.bytes);
    expect(Number(model.opsetImport.find((entry) => (entry.domain ?? '') === '')?.version)).toBe(19);
    expect(Number(nodes.find((node) => node.opType === 'Cast')?.attribute?.[0]?.i)).toBe(17);
    // Flatten only moves data: its input is not cast again.
    expect(nodes.find((node) => node.opType === 'Flatten')?.input).toEqual(['pooled']);
  });

  it('rounds weights without casting activations for TF32, which ONNX has no type for', () => {
    // Act
    const result = autoCastModel(generateExampleModel(), { mode: 'matmult', type: 'tf32' });

    // Assert
    expect(result.roundedWeights).toBe(20);
    expect(result.castActivations).toBe(0);
    expect(graphOf(result.bytes).nodes.some((node) => node.opType === 'Cast')).toBe(false);
  });

  it('never casts the integer token ids of the generative model', () => {
    // Act
    const result = autoCastModel(generateGenerativeModel(), { mode: 'all', type: 'bf16' });

    // Assert
    const { nodes } = graphOf(result.bytes);
    const castInputs = nodes.filter((node) => node.opType === 'Cast').map((node) => node.input?.[0]);
    expect(castInputs).not.toContain('token_ids');
    expect(result.castActivations).toBeGreaterThan(0);
  });

  it('fails when FP8 needs opset 19 and the model uses an operator whose definition changed by then', () => {
    // Act
    const casting = () => autoCastModel(generateGenerativeModel(), { mode: 'matmult', type: 'fp8_e4m3' });

    // Assert
    expect(casting).toThrow(CompilationFailedError);
    expect(casting).toThrow(/uses ReduceMean, whose definition changed by opset 19/);
  });
});

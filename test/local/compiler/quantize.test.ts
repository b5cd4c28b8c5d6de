/**
 * The local compiler's int8 quantization: the example CNN compiled for ml_c5 in QDQ form, fused by
 * ONNX Runtime into its int8 kernels, run over the payload set of examples/local-quality.json, and
 * its answers judged against the uncompiled model's as the output-quality guard judges them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import onnxProto from 'onnx-proto';

import { CompilationFailedError } from '../../../core/contracts/errors.js';
import { QUALITY_VERDICTS } from '../../../core/contracts/quality.js';
import type { Quantization } from '../../../core/contracts/quantization.js';
import { judgeClassifiers, judgeTensors, type TensorAnswer } from '../../../core/quality/index.js';
import { compileModel } from '../../../local/compiler/compile-model.js';
import { activationParameters } from '../../../local/compiler/quantize.js';
import { writeExampleModel } from '../../../local/example-model/example-model.js';
import { answersOf, judgedPair, TOLERANCE } from './support/example-answers.js';

async function operatorsOf(modelPath: string): Promise<Set<string>> {
  const model = onnxProto.onnx.ModelProto.decode(await readFile(modelPath));
  return new Set((model.graph?.node ?? []).map((node) => node.opType ?? ''));
}

describe('compileModel with int8 quantization', () => {
  let dir: string;
  let sourceModelPath: string;
  let reference: TensorAnswer[];

  function judged(candidate: readonly TensorAnswer[]) {
    return judgedPair(reference, candidate, 'c5-int8');
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'compiler-int8-'));
    sourceModelPath = join(dir, 'source', 'model.onnx');
    await writeExampleModel(sourceModelPath);
    reference = await answersOf(sourceModelPath);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes an artifact that runs on ONNX Runtime’s int8 kernels, with no FP32 convolution left', async () => {
    // Prepare
    const outputModelPath = join(dir, 'int8', 'model.onnx');

    // Act
    const result = await compileModel({
      sourceModelPath,
      outputModelPath,
      target: 'ml_c5',
      quantization: { type: 'int8', calibrationRange: [-1, 1], calibrationSamples: 4 },
    });
    const operators = await operatorsOf(outputModelPath);

    // Assert
    expect(['QLinearConv', 'QGemm', 'QLinearAdd'].filter((op) => !operators.has(op))).toEqual([]);
    expect([...operators].filter((op) => ['Conv', 'FusedConv', 'Gemm'].includes(op))).toEqual([]);
    // The example CNN: 18 convolutions (BatchNormalization folded in) and 2 fully connected layers.
    expect(result.quantized).toMatchObject({ type: 'int8', quantizedWeights: 20 });
    expect(result.notes.join(' ')).toContain('calibrated on 4 input(s) drawn uniformly from [-1, 1]');
  });

  it('calibrated on the range the payloads lie in, keeps every top class and stays within 1 logit', async () => {
    // Prepare
    const outputModelPath = join(dir, 'int8-matched', 'model.onnx');

    // Act
    await compileModel({
      sourceModelPath,
      outputModelPath,
      target: 'ml_c5',
      quantization: { type: 'int8', calibrationRange: [-1, 1], calibrationSamples: 16 },
    });
    const answers = await answersOf(outputModelPath);

    // Assert
    const tensors = judgeTensors(judged(answers), TOLERANCE);
    expect(tensors.figures.maxAbsoluteDifference).toBeGreaterThan(1e-3);
    expect(tensors.figures.maxAbsoluteDifference).toBeLessThan(1);
    const top1 = judgeClassifiers(judged(answers), { kind: 'classifier', topK: 1, minAgreementRate: 1 });
    expect(top1.verdict).toBe(QUALITY_VERDICTS.passed);
  });

  it('calibrated for inputs in [0, 1] while the payloads lie in [-1, 1], answers far beyond the tolerance', async () => {
    // Prepare
    const outputModelPath = join(dir, 'int8-mismatched', 'model.onnx');

    // Act
    await compileModel({
      sourceModelPath,
      outputModelPath,
      target: 'ml_c5',
      quantization: { type: 'int8', calibrationRange: [0, 1], calibrationSamples: 16 },
    });
    const answers = await answersOf(outputModelPath);

    // Assert
    const tensors = judgeTensors(judged(answers), TOLERANCE);
    expect(tensors.verdict).toBe(QUALITY_VERDICTS.qualityFailed);
    expect(tensors.figures.maxAbsoluteDifference).toBeGreaterThan(3);
    expect(tensors.worstExamples).toHaveLength(3);
  });

  it('quantizes the same model and range to the same bytes', async () => {
    // Prepare
    const quantization: Quantization = { type: 'int8', calibrationRange: [-1, 1], calibrationSamples: 2 };
    const [first, second] = [join(dir, 'same-1', 'model.onnx'), join(dir, 'same-2', 'model.onnx')];

    // Act
    await compileModel({ sourceModelPath, outputModelPath: first, target: 'ml_c5', quantization });
    await compileModel({ sourceModelPath, outputModelPath: second, target: 'ml_c5', quantization });

    // Assert
    expect(Buffer.compare(await readFile(first), await readFile(second))).toBe(0);
  });

  it('fails when a Neuron target is quantized: its precision comes from its compiler flags', async () => {
    // Act
    const failure = compileModel({
      sourceModelPath,
      outputModelPath: join(dir, 'inf2-int8', 'model.onnx'),
      target: 'ml_inf2',
      quantization: { type: 'int8', calibrationRange: [-1, 1], calibrationSamples: 2 },
    });

    // Assert
    await expect(failure).rejects.toThrow(CompilationFailedError);
    await expect(failure).rejects.toThrow('expected a CPU or GPU target');
  });
});

describe('activationParameters', () => {
  it('maps a range holding 0 onto uint8 with 0 exact', () => {
    // Act
    const { scale, zeroPoint } = activationParameters([-1, 3]);

    // Assert
    expect(scale).toBeCloseTo(4 / 255, 12);
    expect(zeroPoint).toBe(64);
    expect((0 - zeroPoint) * scale).toBeCloseTo(-1, 2);
  });

  it('gives a tensor that was 0 throughout a positive scale', () => {
    // Act
    const parameters = activationParameters([0, 0]);

    // Assert
    expect(parameters).toEqual({ scale: 1, zeroPoint: 0 });
  });
});

/**
 * Neuron compiler flags that change a compiled model's answers, judged as the output-quality guard
 * judges them: the example CNN compiled with each, run by ONNX Runtime over a payload set, and its
 * answers compared with the uncompiled model's by core/quality's rules.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { QUALITY_VERDICTS } from '../../../core/contracts/quality.js';
import { judgeClassifiers, judgeTensors, type TensorAnswer } from '../../../core/quality/index.js';
import { compileModel } from '../../../local/compiler/compile-model.js';
import { writeExampleModel } from '../../../local/example-model/example-model.js';
import { answersOf, judgedPair, TOLERANCE } from './support/example-answers.js';

describe('compileModel with Neuron compiler flags', () => {
  let dir: string;
  let sourceModelPath: string;
  let reference: TensorAnswer[];

  function judged(candidate: readonly TensorAnswer[]) {
    return judgedPair(reference, candidate, 'candidate');
  }

  function maxAbsoluteDifference(candidate: readonly TensorAnswer[]): number {
    return Math.max(
      ...candidate.flatMap((answer, row) =>
        Array.from(answer.values, (value, index) => Math.abs(value - (reference[row]?.values[index] ?? NaN))),
      ),
    );
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'compiler-precision-'));
    sourceModelPath = join(dir, 'source', 'model.onnx');
    await writeExampleModel(sourceModelPath);
    reference = await answersOf(sourceModelPath);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('compiles FP16 matrix multiplies for ml_inf1: answers change, within the stated tolerance, same top class', async () => {
    // Prepare
    const outputModelPath = join(dir, 'inf1-fp16', 'model.onnx');

    // Act
    const result = await compileModel({
      sourceModelPath,
      outputModelPath,
      target: 'ml_inf1',
      compilerOptions: '--fast-math fp32-cast-matmult-fp16',
    });
    const answers = await answersOf(outputModelPath);

    // Assert
    expect(result.precision).toEqual({
      mode: 'matmult',
      type: 'fp16',
      roundedWeights: 20,
      castActivations: 20,
    });
    expect(maxAbsoluteDifference(answers)).toBeGreaterThan(1e-3);
    const tensors = judgeTensors(judged(answers), TOLERANCE);
    expect(tensors.verdict).toBe(QUALITY_VERDICTS.passed);
    expect(tensors.figures.maxAbsoluteDifference).toBeLessThan(TOLERANCE.maxAbsoluteDifference);
    const top1 = judgeClassifiers(judged(answers), { kind: 'classifier', topK: 1, minAgreementRate: 1 });
    expect(top1.figures.agreementRate).toBe(1);
  });

  it('compiles every operator in FP8 for ml_inf2: answers far beyond the tolerance, so the guard fails it', async () => {
    // Prepare
    const outputModelPath = join(dir, 'inf2-fp8', 'model.onnx');

    // Act
    const result = await compileModel({
      sourceModelPath,
      outputModelPath,
      target: 'ml_inf2',
      compilerOptions: '--auto-cast all --auto-cast-type fp8_e4m3',
    });
    const answers = await answersOf(outputModelPath);

    // Assert
    expect(result.precision).toMatchObject({ mode: 'all', type: 'fp8_e4m3', opsetRaisedTo: 19 });
    expect(result.notes.join(' ')).toContain('every FP32 operator cast to fp8_e4m3');
    const tensors = judgeTensors(judged(answers), TOLERANCE);
    expect(tensors.verdict).toBe(QUALITY_VERDICTS.qualityFailed);
    expect(tensors.figures.maxAbsoluteDifference).toBeGreaterThan(1);
    expect(tensors.worstExamples).toHaveLength(3);
  });

  it('compiles ml_inf1 without flags in BF16, neuron-cc’s default (--fast-math all)', async () => {
    // Act
    const result = await compileModel({
      sourceModelPath,
      outputModelPath: join(dir, 'inf1-default', 'model.onnx'),
      target: 'ml_inf1',
    });

    // Assert
    expect(result.precision).toMatchObject({ mode: 'all', type: 'bf16' });
  });

  it('compiles ml_inf2 without flags in FP32, neuronx-cc’s default (--auto-cast none): the answers stay the model’s', async () => {
    // Prepare
    const outputModelPath = join(dir, 'inf2-default', 'model.onnx');

    // Act
    const result = await compileModel({ sourceModelPath, outputModelPath, target: 'ml_inf2' });
    const answers = await answersOf(outputModelPath);

    // Assert
    expect(result.precision).toEqual({ mode: 'none', type: 'bf16', roundedWeights: 0, castActivations: 0 });
    expect(maxAbsoluteDifference(answers)).toBeLessThan(1e-4);
  });

  it('leaves only the artifact in its folder: the cast model it optimized from is removed', async () => {
    // Prepare
    const folder = join(dir, 'inf2-bf16');

    // Act
    await compileModel({
      sourceModelPath,
      outputModelPath: join(folder, 'model.onnx'),
      target: 'ml_inf2',
      compilerOptions: '--auto-cast matmult --auto-cast-type bf16',
    });

    // Assert
    expect(await readdir(folder)).toEqual(['model.onnx']);
  });

  it('fails when the flags are not the target compiler’s, before writing anything', async () => {
    // Prepare
    const folder = join(dir, 'inf2-bad');

    // Act
    const compiling = compileModel({
      sourceModelPath,
      outputModelPath: join(folder, 'model.onnx'),
      target: 'ml_inf2',
      compilerOptions: '--fast-math fp32-cast-all',
    });

    // Assert
    await expect(compiling).rejects.toThrow(
      'Compiler options "--fast-math fp32-cast-all" for ml_inf2: expected neuronx-cc flags: --auto-cast none|matmult|all',
    );
    await expect(readdir(folder)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

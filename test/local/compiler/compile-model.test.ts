import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { arch, tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { COMPILATION_TARGETS } from '../../../core/contracts/compilation-targets.js';
import { CompilationFailedError, ErrorNames } from '../../../core/contracts/errors.js';
import { compileModel } from '../../../local/compiler/compile-model.js';
import { isCompilationTarget } from '../../../local/compiler/compile-targets.js';
import { EXAMPLE_MODEL_SAMPLE_SIZE, writeExampleModel } from '../../../local/example-model/example-model.js';
import { onnx } from '../../../local/example-model/onnx-builder.js';
import { runModel, sampleInput } from '../model-server/run-model.js';

const localCpuTarget = arch() === 'arm64' ? 'ml_c6g' : 'ml_c5';

describe('compileModel', () => {
  let dir: string;
  let sourceModelPath: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'compiler-'));
    sourceModelPath = join(dir, 'source', 'model.onnx');
    await writeExampleModel(sourceModelPath);
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes an artifact whose outputs match the source model within 1e-4', async () => {
    // Prepare
    const outputModelPath = join(dir, 'compiled-c5', 'model.onnx');
    const input = sampleInput(2, EXAMPLE_MODEL_SAMPLE_SIZE);

    // Act
    const result = await compileModel({ sourceModelPath, outputModelPath, target: localCpuTarget });

    // Assert
    expect(result.outputModelPath).toBe(outputModelPath);
    expect(result.optimizationLevel).toBe('all');
    expect(result.outputBytes).toBeGreaterThan(0);
    const expected = await runModel(sourceModelPath, input, 2);
    const actual = await runModel(outputModelPath, input, 2);
    expect(actual.dims).toEqual(expected.dims);
    expected.output.forEach((value, index) => {
      expect(Math.abs((actual.output[index] ?? Number.NaN) - value)).toBeLessThan(1e-4);
    });
  });

  it('folds the BatchNormalization layers into the convolutions', async () => {
    // Prepare
    const outputModelPath = join(dir, 'compiled-fused', 'model.onnx');

    // Act
    await compileModel({ sourceModelPath, outputModelPath, target: localCpuTarget });

    // Assert
    const opTypes = (path: Buffer) =>
      (onnx.ModelProto.decode(path).graph?.node ?? []).map((node) => node.opType);
    const source = opTypes(await readFile(sourceModelPath));
    const compiled = opTypes(await readFile(outputModelPath));
    expect(source).toContain('BatchNormalization');
    expect(compiled).not.toContain('BatchNormalization');
    expect(compiled.length).toBeLessThan(source.length);
  });

  it('reports a CPU target of this machine’s architecture as matching, with one note', async () => {
    // Act
    const result = await compileModel({
      sourceModelPath,
      outputModelPath: join(dir, 'compiled-cpu', 'model.onnx'),
      target: localCpuTarget,
    });

    // Assert
    expect(result.target).toBe(localCpuTarget);
    expect(result.matchesTargetArchitecture).toBe(true);
    expect(result.compiledFor.arch).toBe(arch());
    expect(result.notes).toHaveLength(1);
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('says that an accelerator target was compiled for the local CPU, not the accelerator', async () => {
    // Act
    const result = await compileModel({
      sourceModelPath,
      outputModelPath: join(dir, 'compiled-inf2', 'model.onnx'),
      target: 'ml_inf2',
    });

    // Assert
    expect(result.matchesTargetArchitecture).toBe(false);
    expect(result.targetHardware).toContain('Inferentia2');
    expect(result.notes.join(' ')).toContain(`locally it was compiled for this machine's ${arch()} CPU`);
    expect(result.notes.join(' ')).toContain('not for that accelerator');
  });

  it('fails when the source model does not exist', async () => {
    // Prepare
    const missing = join(dir, 'missing.onnx');

    // Act
    const compiling = compileModel({
      sourceModelPath: missing,
      outputModelPath: join(dir, 'never', 'model.onnx'),
      target: 'ml_c5',
    });

    // Assert
    await expect(compiling).rejects.toThrow(CompilationFailedError);
    await expect(compiling).rejects.toThrow(
      `Source model ${missing} does not exist: expected an ONNX model file`,
    );
  });

  it('fails when the source is not a valid ONNX model, leaving no artifact', async () => {
    // Prepare
    const invalid = join(dir, 'invalid.onnx');
    await writeFile(invalid, 'this is not a protobuf model');
    const outputModelPath = join(dir, 'compiled-invalid', 'model.onnx');

    // Act
    const compiling = compileModel({ sourceModelPath: invalid, outputModelPath, target: 'ml_c5' });

    // Assert
    await expect(compiling).rejects.toMatchObject({
      name: ErrorNames.compilationFailed,
      message: expect.stringContaining(`ONNX Runtime could not load ${invalid}`),
    });
    await expect(readFile(outputModelPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('fails when the target is unknown', async () => {
    // Act
    const compiling = compileModel({
      sourceModelPath,
      outputModelPath: join(dir, 'compiled-x', 'model.onnx'),
      target: 'ml_x99',
    });

    // Assert
    await expect(compiling).rejects.toThrow(
      /Unknown compilation target "ml_x99": expected one of ml_c4, ml_c5/,
    );
  });

  it('fails when the output path is the source model', async () => {
    // Act
    const compiling = compileModel({
      sourceModelPath,
      outputModelPath: sourceModelPath,
      target: 'ml_c5',
    });

    // Assert
    await expect(compiling).rejects.toThrow('is the source model: expected a different path');
  });
});

describe('local compiler targets', () => {
  it('cover every compilation target the planner accepts', () => {
    // Act
    const unknown = COMPILATION_TARGETS.filter((target) => !isCompilationTarget(target));

    // Assert
    expect(unknown).toEqual([]);
  });
});

import { describe, expect, it } from '@jest/globals';
import {
  compilerOptionsIssues,
  compilerOptionsParameter,
  parseCompilerOptions,
} from '../../../core/contracts/compiler-options.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';
import { compiledCnnRunInput, issuesOf } from './support/run-input-issues.js';

/** The example CNN compiled for two Neuron targets, each with its own precision flags. */
function input(compilerOptions: Record<string, string>, targets = ['ml_inf1', 'ml_inf2']): unknown {
  return compiledCnnRunInput({ targets, compilerOptions }, [
    { id: 'c5', instanceType: 'ml.c5.large' },
    { id: 'inf1', instanceType: 'ml.inf1.xlarge', compiledFor: 'ml_inf1' },
    { id: 'inf2', instanceType: 'ml.inf2.xlarge', compiledFor: 'ml_inf2' },
  ]);
}

describe('parseCompilerOptions', () => {
  it.each([
    ['--auto-cast matmult', { mode: 'matmult', type: 'bf16' }],
    ['--auto-cast all --auto-cast-type fp16', { mode: 'all', type: 'fp16' }],
    ['--auto-cast-type fp8_e4m3 --auto-cast all', { mode: 'all', type: 'fp8_e4m3' }],
    ['--auto-cast none', { mode: 'none', type: 'bf16' }],
    // The right-most of competing flags wins, as neuronx-cc reads them.
    ['--auto-cast all --auto-cast matmult --auto-cast-type tf32', { mode: 'matmult', type: 'tf32' }],
  ])('reads neuronx-cc flags %j for ml_inf2', (flags, autoCast) => {
    // Act
    const parsed = parseCompilerOptions('ml_inf2', flags);

    // Assert
    expect(parsed).toEqual({ ok: true, autoCast });
  });

  it.each([
    ['--fast-math all', { mode: 'all', type: 'bf16' }],
    // neuron-cc's "none" still casts the matrix-multiply operators to BF16.
    ['--fast-math none', { mode: 'matmult', type: 'bf16' }],
    ['--fast-math fp32-cast-matmult-fp16', { mode: 'matmult', type: 'fp16' }],
    ['--fast-math fp32-cast-all-fp16 no-fast-relayout', { mode: 'all', type: 'fp16' }],
    ['--fast-math no-fast-relayout', { mode: 'all', type: 'bf16' }],
    // --fp32-cast overrides the casting --fast-math chose, wherever it stands.
    ['--fp32-cast matmult-fp16 --fast-math all', { mode: 'matmult', type: 'fp16' }],
  ])('reads neuron-cc flags %j for ml_inf1', (flags, autoCast) => {
    // Act
    const parsed = parseCompilerOptions('ml_inf1', flags);

    // Assert
    expect(parsed).toEqual({ ok: true, autoCast });
  });

  it.each([
    ['ml_inf2', '--auto-cast-type int8'],
    ['ml_inf2', '--auto-cast'],
    ['ml_inf2', '--fast-math all'],
    ['ml_inf2', '   '],
    ['ml_inf1', '--auto-cast all'],
    ['ml_inf1', '--fast-math all none'],
    ['ml_inf1', '--fast-math fp32-cast-all fp32-cast-matmult'],
    ['ml_inf1', '--fp32-cast fp8'],
  ])('fails when %s is given %j', (target, flags) => {
    // Act
    const parsed = parseCompilerOptions(target, flags);

    // Assert
    expect(parsed.ok).toBe(false);
  });

  it('fails when the target is not a Neuron target, naming the ones that take flags', () => {
    // Act
    const parsed = parseCompilerOptions('ml_c5', '--auto-cast all');

    // Assert
    expect(parsed).toEqual({
      ok: false,
      expected: 'compiler options for a Neuron target only (ml_inf1, ml_inf2), not ml_c5',
    });
  });
});

describe('compilerOptionsParameter', () => {
  it('JSON-encodes the flags, as Neo takes a Neuron target’s CompilerOptions', () => {
    // Act
    const parameter = compilerOptionsParameter('--auto-cast all --auto-cast-type fp16');

    // Assert
    expect(parameter).toBe('"--auto-cast all --auto-cast-type fp16"');
  });
});

describe('compilerOptionsIssues', () => {
  it('fails when the flags are longer than CompilerOptions takes once JSON-encoded', () => {
    // Prepare
    const flags = Array.from({ length: 70 }, () => '--auto-cast all').join(' ');

    // Act
    const issues = compilerOptionsIssues({ targets: ['ml_inf2'], compilerOptions: { ml_inf2: flags } });

    // Assert
    expect(issues).toEqual([
      {
        path: ['compilation', 'compilerOptions', 'ml_inf2'],
        message:
          "flags of at most 1024 characters once JSON-encoded (CreateCompilationJob's CompilerOptions)",
        given: '1121 characters',
      },
    ]);
  });
});

describe('run input: compilation.compilerOptions', () => {
  it('accepts precision flags for each listed Neuron target', () => {
    // Prepare
    const options = {
      ml_inf1: '--fast-math fp32-cast-matmult-fp16',
      ml_inf2: '--auto-cast all --auto-cast-type fp8_e4m3',
    };

    // Act
    const parsed = parseOrThrow(runInputSchema, input(options));

    // Assert
    expect(parsed.compilation.compilerOptions).toEqual(options);
  });

  it('fails when a target with flags is not in compilation.targets', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(runInputSchema, input({ ml_inf2: '--auto-cast all' }, ['ml_inf1'])),
    );

    // Assert
    expect(issues).toContainEqual({
      field: 'compilation.compilerOptions.ml_inf2',
      given: '"ml_inf2"',
      expected: 'a target listed in compilation.targets (ml_inf1)',
    });
  });

  it('fails when the flags are not the Neuron compiler’s, naming the field and the flags it reads', () => {
    // Act
    const issues = issuesOf(() =>
      parseOrThrow(runInputSchema, input({ ml_inf2: '--auto-cast all --auto-cast-type int4' })),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.compilerOptions.ml_inf2',
        given: '"--auto-cast all --auto-cast-type int4"',
        expected:
          'neuronx-cc flags: --auto-cast none|matmult|all and --auto-cast-type bf16|fp16|tf32|fp8_e4m3, such as ' +
          '"--auto-cast matmult --auto-cast-type fp16"',
      },
    ]);
  });
});

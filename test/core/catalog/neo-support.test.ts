import { describe, expect, it } from '@jest/globals';
import { COMPILATION_TARGETS } from '../../../core/contracts/compilation-targets.js';
import {
  compilationSupportIssues,
  describeRule,
  NEO_SUPPORT,
  NEO_SUPPORT_SOURCE,
  takesInputDataType,
  versionMatches,
} from '../../../core/catalog/neo-support.js';

const SEE = `(SageMaker Neo, ${NEO_SUPPORT_SOURCE.url})`;

describe('Neo support table', () => {
  it('has a row for every compilation target of the catalog', () => {
    expect(COMPILATION_TARGETS.filter((target) => NEO_SUPPORT[target] === undefined)).toEqual([]);
  });

  it('matches a release line and its patch versions, not the next line', () => {
    // Prepare
    const rule = { kind: 'lines', lines: ['1.13', '2.0'] } as const;

    // Act
    const matches = ['1.13', '1.13.1', '2.0.1', '1.14', '2.1', '1.1'].map((v) => versionMatches(rule, v));

    // Assert
    expect(matches).toEqual([true, true, true, false, false, false]);
  });

  it('matches every version up to a bound, comparing numbers rather than text', () => {
    // Prepare
    const rule = { kind: 'upTo', version: '1.9' } as const;

    // Act
    const matches = ['1.5.1', '1.9', '1.9.0', '1.10', '1.13'].map((v) => versionMatches(rule, v));

    // Assert
    expect(matches).toEqual([true, true, true, false, false]);
  });

  it('describes a rule as the docs do', () => {
    expect([
      describeRule({ kind: 'lines', lines: ['1.15.3', '2.9'] }),
      describeRule({ kind: 'upTo', version: '1.7.0' }),
    ]).toEqual(['1.15.3 or 2.9', '1.7.0 or earlier']);
  });

  it('accepts what Neo documents: PyTorch 1.13.1 for GPU and Inferentia2, 1.9 for Inferentia, ONNX on CPU', () => {
    // Act
    const issues = [
      compilationSupportIssues(
        { framework: 'pytorch', frameworkVersion: '1.13.1', targets: ['ml_g4dn', 'ml_inf2'] },
        'us-east-2',
      ),
      compilationSupportIssues(
        { framework: 'pytorch', frameworkVersion: '1.9', targets: ['ml_inf1'] },
        'us-east-1',
      ),
      compilationSupportIssues({ framework: 'onnx', targets: ['ml_c5', 'ml_c6g'] }, 'eu-west-1'),
    ];

    // Assert
    expect(issues).toEqual([[], [], []]);
  });

  it('refuses a PyTorch version Neo does not compile for CPU targets, naming the target', () => {
    // Act
    const issues = compilationSupportIssues(
      { framework: 'pytorch', frameworkVersion: '2.1', targets: ['ml_c5'] },
      'us-east-1',
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.frameworkVersion',
        given: '"2.1"',
        expected: `a pytorch version Neo compiles for compilation.targets[0] (ml_c5): 1.4, 1.5, 1.6, 1.7, 1.8, 1.12, 1.13 or 2.0 ${SEE}`,
      },
    ]);
  });

  it('refuses PyTorch 1.13 for ml_inf1, which compiles PyTorch 1.9 or earlier', () => {
    // Act
    const issues = compilationSupportIssues(
      { framework: 'pytorch', frameworkVersion: '1.13', targets: ['ml_g4dn', 'ml_inf1'] },
      'us-east-1',
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.frameworkVersion',
        given: '"1.13"',
        expected: `a pytorch version Neo compiles for compilation.targets[1] (ml_inf1): 1.9 or earlier ${SEE}`,
      },
    ]);
  });

  it('refuses ml_inf2 outside us-east-2, where Neo compiles for it', () => {
    // Act
    const issues = compilationSupportIssues(
      { framework: 'pytorch', frameworkVersion: '1.13', targets: ['ml_inf2'] },
      'us-east-1',
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.targets[0]',
        given: '"ml_inf2" in us-east-1',
        expected:
          'a target Neo compiles for in us-east-1: ml_inf2 compiles only in us-east-2 ' +
          `(SageMaker API reference, ${NEO_SUPPORT_SOURCE.apiUrl}); deploy the stack there or drop ml_inf2`,
      },
    ]);
  });

  it('refuses ONNX for ml_inf1, naming the targets that compile ONNX', () => {
    // Act
    const issues = compilationSupportIssues({ framework: 'onnx', targets: ['ml_inf1'] });

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.targets[0]',
        given: '"ml_inf1"',
        expected: `a target that compiles onnx models: ml_m5, ml_c5, ml_c6g, ml_m6g, ml_g4dn, ml_p3 ${SEE}`,
      },
    ]);
  });

  it('refuses TFLite for every cloud target: Neo compiles it for edge devices only', () => {
    // Act
    const issues = compilationSupportIssues({
      framework: 'tflite',
      frameworkVersion: '2.13',
      targets: ['ml_c5'],
    });

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.targets[0]',
        given: '"ml_c5"',
        expected: `no target: Neo compiles tflite models for edge devices only, not for cloud instances ${SEE}; serve the model uncompiled`,
      },
    ]);
  });

  it('refuses an int64 input data type for Inferentia, which takes no dtype', () => {
    // Act
    const issues = compilationSupportIssues(
      {
        framework: 'pytorch',
        frameworkVersion: '1.8',
        inputDataType: 'int64',
        targets: ['ml_c5', 'ml_inf1'],
      },
      'us-east-1',
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.inputDataType',
        given: '"int64"',
        expected:
          'no input data type for compilation.targets[1] (ml_inf1): Neo takes CompilerOptions dtype for ml_* targets ' +
          `except Inferentia, where PyTorch models must take float32 inputs (${NEO_SUPPORT_SOURCE.apiUrl}); ` +
          'compile for a CPU/GPU target, or export the model with float32 inputs',
      },
    ]);
  });

  it('says which targets take a dtype in CompilerOptions', () => {
    expect(['ml_c5', 'ml_g4dn', 'ml_inf1', 'ml_inf2', 'ml_g5'].map(takesInputDataType)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

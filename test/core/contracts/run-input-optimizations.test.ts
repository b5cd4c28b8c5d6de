import { OptimizationJobDeploymentInstanceType } from '@aws-sdk/client-sagemaker';
import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { OPTIMIZATION_INSTANCE_TYPES } from '../../../core/contracts/optimization-input.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

const QUANTIZE_AWQ = { quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'awq' } } };

/** A generative run (streamed answers) with one plain and one optimized candidate on ml.g5. */
function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: {
      artifactUri: 's3://user-models/llm/model.tar.gz',
      framework: 'pytorch',
      frameworkVersion: '2.1',
    },
    payload: { uri: 's3://user-models/llm/prompt.json' },
    compilation: {
      optimizations: [{ id: 'g5-awq', deploymentInstanceType: 'ml.g5.xlarge', techniques: QUANTIZE_AWQ }],
    },
    candidates: [
      { id: 'g5-plain', instanceType: 'ml.g5.xlarge' },
      { id: 'g5-awq', instanceType: 'ml.g5.2xlarge', optimizedBy: 'g5-awq' },
    ],
    loadPlan: { steps: [1], response: { mode: 'stream', format: 'tgi' } },
    sla: { ttftP95Ms: 500 },
    ...overrides,
  };
}

function issuesOf(document: unknown): InvalidRunInputError['issues'] {
  try {
    parseOrThrow(runInputSchema, document);
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

describe('run input: optimization jobs', () => {
  it('keeps the instance types of SageMaker’s OptimizationJobDeploymentInstanceType enum, as the SDK exports it', () => {
    // Act
    const sdk = Object.values(OptimizationJobDeploymentInstanceType);

    // Assert
    expect([...OPTIMIZATION_INSTANCE_TYPES].sort()).toEqual([...sdk].sort());
  });

  it('accepts an optimization and a candidate on its instance family, with the compilation defaults', () => {
    // Act
    const parsed = parseOrThrow(runInputSchema, input());

    // Assert
    expect(parsed.compilation).toEqual({
      targets: [],
      maxRuntimeSeconds: 900,
      optimizations: [{ id: 'g5-awq', deploymentInstanceType: 'ml.g5.xlarge', techniques: QUANTIZE_AWQ }],
    });
    expect(parsed.candidates[1]).toEqual({
      id: 'g5-awq',
      instanceType: 'ml.g5.2xlarge',
      initialInstanceCount: 1,
      optimizedBy: 'g5-awq',
      environment: {},
    });
  });

  it('refuses an instance type optimization jobs do not take, naming the field', () => {
    // Act
    const issues = issuesOf(
      input({
        compilation: {
          optimizations: [{ id: 'g5-awq', deploymentInstanceType: 'ml.c5.xlarge', techniques: QUANTIZE_AWQ }],
        },
      }),
    );

    // Assert
    expect(issues.map((issue) => issue.field)).toEqual([
      'compilation.optimizations[0].deploymentInstanceType',
    ]);
    expect(issues[0]?.given).toBe('"ml.c5.xlarge"');
    expect(issues[0]?.expected).toMatch(
      /^an instance type an optimization job optimizes for \(SageMaker's OptimizationJobDeploymentInstanceType\): ml\.g4dn\.xlarge, /,
    );
  });

  it('refuses an optimization without a technique', () => {
    // Act
    const issues = issuesOf(
      input({
        compilation: {
          optimizations: [{ id: 'g5-awq', deploymentInstanceType: 'ml.g5.xlarge', techniques: {} }],
        },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.optimizations[0].techniques',
        given: '{}',
        expected:
          'at least one technique: compilation, quantization, sharding (e.g. { "quantization": { "overrideEnvironment": { "OPTION_QUANTIZE": "awq" } } })',
      },
    ]);
  });

  it('refuses a candidate on another instance family than its optimization’s', () => {
    // Act
    const issues = issuesOf(
      input({
        candidates: [{ id: 'g6-awq', instanceType: 'ml.g6.xlarge', optimizedBy: 'g5-awq' }],
        pricing: { usdPerHour: { 'ml.g6.xlarge': 0.805 } },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].optimizedBy',
        given: '"g5-awq"',
        expected:
          "an optimization for the candidate's instance family: g5-awq optimizes for ml.g5.xlarge, and its model does not run on ml.g6.xlarge; use an ml.g5.* candidate or an optimization for ml.g6.xlarge",
      },
    ]);
  });

  it('refuses optimizedBy naming no optimization of the run', () => {
    // Act
    const issues = issuesOf(
      input({ candidates: [{ id: 'g5-fp8', instanceType: 'ml.g5.xlarge', optimizedBy: 'g5-fp8' }] }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].optimizedBy',
        given: '"g5-fp8"',
        expected: 'the id of an optimization in compilation.optimizations (g5-awq)',
      },
    ]);
  });

  it('refuses a candidate both compiled by Neo and optimized', () => {
    // Act
    const issues = issuesOf(
      input({
        compilation: {
          targets: ['ml_g4dn'],
          optimizations: [{ id: 'g5-awq', deploymentInstanceType: 'ml.g5.xlarge', techniques: QUANTIZE_AWQ }],
        },
        model: {
          artifactUri: 's3://user-models/llm/model.tar.gz',
          framework: 'pytorch',
          frameworkVersion: '2.1',
          inputShape: { input_ids: [1, 128] },
        },
        candidates: [{ instanceType: 'ml.g5.xlarge', compiledFor: 'ml_g4dn', optimizedBy: 'g5-awq' }],
      }),
    );

    // Assert
    expect(issues.filter((issue) => issue.field === 'candidates[0].optimizedBy')).toEqual([
      {
        field: 'candidates[0].optimizedBy',
        given: '"g5-awq"',
        expected:
          "either compiledFor (a Neo artifact) or optimizedBy (an optimization job's model), not both",
      },
    ]);
  });

  it('refuses an optimization of a model whose answers do not stream (not a generative run)', () => {
    // Act
    const issues = issuesOf(input({ loadPlan: { steps: [1] }, sla: { p95LatencyMs: 200 } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.optimizations',
        given: '["g5-awq"]',
        expected:
          'optimizations of a generative model only: SageMaker optimization jobs optimize LLMs served by the LMI container, whose answers stream; set loadPlan.response { "mode": "stream", "format": … }, or compile this model with compilation.targets (SageMaker Neo)',
      },
    ]);
  });

  it('refuses an optimization of a Hub model, which has no model data in S3 for the job to read', () => {
    // Act
    const issues = issuesOf(
      input({
        model: {
          framework: 'huggingface',
          frameworkVersion: '4.37',
          pytorchVersion: '2.1',
          hub: { modelId: 'distilbert/distilgpt2' },
          image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-lmi11.0.0-cu124',
        },
      }),
    );

    // Assert
    expect(issues.filter((issue) => issue.field === 'compilation.optimizations')).toEqual([
      {
        field: 'compilation.optimizations',
        given: '["g5-awq"]',
        expected:
          'a model with artifactUri: an optimization job reads its source model from S3 (ModelSource.S3), and a Hub model has none until its container downloads it',
      },
    ]);
  });

  it('refuses two optimizations with one id', () => {
    // Act
    const issues = issuesOf(
      input({
        compilation: {
          optimizations: [
            { id: 'g5-awq', deploymentInstanceType: 'ml.g5.xlarge', techniques: QUANTIZE_AWQ },
            { id: 'g5-awq', deploymentInstanceType: 'ml.g5.2xlarge', techniques: QUANTIZE_AWQ },
          ],
        },
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.optimizations[1].id',
        given: '"g5-awq"',
        expected: 'an id no other optimization uses',
      },
    ]);
  });

  it('refuses more than 25 variables in a technique’s OverrideEnvironment', () => {
    // Prepare
    const overrideEnvironment = Object.fromEntries(
      Array.from({ length: 26 }, (_, i) => [`OPTION_${i}`, '1']),
    );

    // Act
    const issues = issuesOf(
      input({
        compilation: {
          optimizations: [
            {
              id: 'g5-awq',
              deploymentInstanceType: 'ml.g5.xlarge',
              techniques: { quantization: { overrideEnvironment } },
            },
          ],
        },
      }),
    );

    // Assert
    expect(issues.map((issue) => [issue.field, issue.expected])).toEqual([
      [
        'compilation.optimizations[0].techniques.quantization.overrideEnvironment',
        "at most 25 variables (SageMaker's OptimizationJobEnvironmentVariables)",
      ],
    ]);
  });
});

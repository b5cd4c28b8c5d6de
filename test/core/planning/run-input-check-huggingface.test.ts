import { CREDENTIAL_EXPECTED } from '../../../core/contracts/credentials.js';
import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { checkedRunInputSchema } from '../../../core/planning/run-input-check.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';

const HUB = {
  modelId: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english',
  task: 'text-classification',
};

function input(model: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model,
    payload: { uri: 's3://user-models/bert/payload.json' },
    candidates: [{ instanceType: 'ml.c5.xlarge' }],
    loadPlan: { steps: [1] },
    sla: { p95LatencyMs: 100 },
    ...extra,
  };
}

const HF_MODEL = { framework: 'huggingface', frameworkVersion: '4.49.0', pytorchVersion: '2.6.0', hub: HUB };

function issuesOf(document: unknown): InvalidRunInputError['issues'] {
  try {
    parseOrThrow(checkedRunInputSchema, document);
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

describe('run input: huggingface models', () => {
  it('accepts a Hub model by id with a transformers and a PyTorch version, and no artifactUri', () => {
    // Act
    const parsed = parseOrThrow(
      checkedRunInputSchema,
      input({ ...HF_MODEL, hub: { ...HUB, revision: 'main' } }),
    );

    // Assert
    expect(parsed.model).toEqual({
      framework: 'huggingface',
      frameworkVersion: '4.49.0',
      pytorchVersion: '2.6.0',
      hub: { ...HUB, revision: 'main' },
      environment: {},
    });
  });

  it('accepts a model.tar.gz of a saved transformers model instead of a Hub id', () => {
    // Act
    const parsed = parseOrThrow(
      checkedRunInputSchema,
      input({
        framework: 'huggingface',
        frameworkVersion: '4.26',
        tensorflowVersion: '2.11',
        artifactUri: 's3://user-models/bert/model.tar.gz',
      }),
    );

    // Assert
    expect(parsed.model?.artifactUri).toBe('s3://user-models/bert/model.tar.gz');
  });

  it('refuses a huggingface model with neither hub nor artifactUri', () => {
    // Act
    const issues = issuesOf(
      input({ framework: 'huggingface', frameworkVersion: '4.49.0', pytorchVersion: '2.6.0' }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.hub',
        given: 'nothing',
        expected:
          'a Hub model { "modelId": "owner/name" }, or artifactUri: a model.tar.gz of a saved transformers model',
      },
    ]);
  });

  it('refuses hub and artifactUri together', () => {
    // Act
    const issues = issuesOf(input({ ...HF_MODEL, artifactUri: 's3://user-models/bert/model.tar.gz' }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.artifactUri',
        given: '"s3://user-models/bert/model.tar.gz"',
        expected: 'either hub (the DLC downloads the model) or artifactUri (your model.tar.gz), not both',
      },
    ]);
  });

  it('refuses both pytorchVersion and tensorflowVersion', () => {
    // Act
    const issues = issuesOf(input({ ...HF_MODEL, tensorflowVersion: '2.11.0' }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.pytorchVersion',
        given: '"2.6.0"',
        expected:
          'exactly one of pytorchVersion and tensorflowVersion: the framework under transformers, such as 2.6.0',
      },
    ]);
  });

  it('refuses a transformers version no Hugging Face DLC has, listing the ones that exist', () => {
    // Act
    const issues = issuesOf(input({ ...HF_MODEL, frameworkVersion: '4.50.0' }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.frameworkVersion',
        given: '"4.50.0"',
        expected:
          'a transformers version with a Hugging Face inference DLC (SageMaker Python SDK huggingface.json): ' +
          '5.5.3, 4.51.3, 4.49.0, 4.48.0, 4.37.0, 4.28.1, 4.26.0',
      },
    ]);
  });

  it('refuses a PyTorch version the transformers DLC is not built on, naming the one it is', () => {
    // Act
    const issues = issuesOf(input({ ...HF_MODEL, pytorchVersion: '2.3' }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.pytorchVersion',
        given: '"2.3"',
        expected:
          'a base framework the transformers 4.49.0 DLC is built on (SageMaker Python SDK huggingface.json): pytorch 2.6.0',
      },
    ]);
  });

  it('refuses compilation targets for a Hub model: Neo has no model data to read', () => {
    // Act
    const issues = issuesOf(
      input(HF_MODEL, {
        compilation: { targets: ['ml_c5'] },
        candidates: [{ instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' }],
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'compilation.targets',
        given: '["ml_c5"]',
        expected:
          'no compilation targets for a Hub model: SageMaker Neo compiles model data it reads from S3, and a Hub model ' +
          'has none until its container downloads it; serve it uncompiled, or give a traced model as framework "pytorch"',
      },
    ]);
  });

  it('refuses a Hub model id the Hub would refuse', () => {
    // Act
    const issues = issuesOf(input({ ...HF_MODEL, hub: { modelId: 'owner/-bad-' } }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.hub.modelId',
        given: '"owner/-bad-"',
        expected: 'a Hugging Face Hub model id such as distilbert/distilbert-base-uncased',
      },
    ]);
  });

  it('refuses a Hub token field: private models go in artifactUri', () => {
    // Act
    const issues = issuesOf(input({ ...HF_MODEL, hub: { ...HUB, token: 'hf_secret' } }));

    // Assert
    expect(JSON.stringify(issues)).not.toContain('hf_secret');
    expect(issues.map((issue) => issue.field)).toEqual(['model.hub']);
  });

  it('fails when a candidate environment holds a Hub token, without showing it', () => {
    // Act
    const issues = issuesOf(
      input(HF_MODEL, {
        candidates: [{ instanceType: 'ml.c5.xlarge', environment: { HF_API_TOKEN: 'hf_secret' } }],
      }),
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].environment.HF_API_TOKEN',
        given: 'a credential, by its name',
        expected: CREDENTIAL_EXPECTED,
      },
    ]);
  });

  it('refuses hub and pytorchVersion on another framework', () => {
    // Act
    const issues = issuesOf(
      input({
        framework: 'pytorch',
        artifactUri: 's3://user-models/r/model.pt',
        hub: HUB,
        pytorchVersion: '2.6.0',
      }),
    );

    // Assert
    expect(issues.map((issue) => [issue.field, issue.expected])).toEqual([
      ['model.hub', 'no hub for pytorch: it is a field of framework "huggingface" models only'],
      [
        'model.pytorchVersion',
        'no pytorchVersion for pytorch: it is a field of framework "huggingface" models only',
      ],
    ]);
  });

  it('refuses a model of another framework without artifactUri', () => {
    // Act
    const issues = issuesOf(input({ framework: 'onnx' }));

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.artifactUri',
        given: 'nothing',
        expected: 'the model file or model.tar.gz (an s3:// URI)',
      },
    ]);
  });
});

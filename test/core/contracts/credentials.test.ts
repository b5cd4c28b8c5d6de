import { describe, expect, it } from '@jest/globals';
import { credentialInEnvironment } from '../../../core/contracts/credentials.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';
import { issuesOf, minimalRunInput as runInput } from './support/run-input-issues.js';
import { parseAsyncRunInput } from '../../../core/planning/async-run-input-check.js';

// AWS's documented example keys (STS API reference, GetAccessKeyInfo) and a made-up Hugging Face token.
const ACCESS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const HF_TOKEN = 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567';

const EXPECTED =
  'no credential in a container environment (SageMaker shows it to anyone allowed DescribeModel, and ' +
  'the run copies it into its state and reports): keep the secret in AWS Secrets Manager, pass its ' +
  "ARN (e.g. HF_TOKEN_SECRET_ARN) and let the container read it with the endpoint's execution role; " +
  'AWS credentials come from that role, never from variables. A public Hugging Face Hub model needs no ' +
  'token; a private one goes in S3 as the model archive';

describe('credentials in a container environment', () => {
  it('fails when model.environment holds AWS keys, naming each variable and never printing its value', () => {
    // Prepare
    const input = runInput({
      model: {
        artifactUri: 's3://mso-artifacts/models/cnn/model.onnx',
        framework: 'onnx',
        environment: { AWS_ACCESS_KEY_ID: ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET_KEY },
      },
    });

    // Act
    const issues = issuesOf(() => parseOrThrow(runInputSchema, input));

    // Assert
    expect(issues).toEqual([
      {
        field: 'model.environment.AWS_ACCESS_KEY_ID',
        given: 'a credential, by its name',
        expected: EXPECTED,
      },
      {
        field: 'model.environment.AWS_SECRET_ACCESS_KEY',
        given: 'a credential, by its name',
        expected: EXPECTED,
      },
    ]);
    expect(JSON.stringify(issues)).not.toContain(SECRET_KEY);
    expect(JSON.stringify(issues)).not.toContain(ACCESS_KEY_ID);
  });

  it('fails when a candidate’s environment holds a Hugging Face token under any name', () => {
    // Prepare
    const input = runInput({
      candidates: [{ instanceType: 'ml.c5.xlarge', environment: { MY_DOWNLOAD_SETTING: HF_TOKEN } }],
    });

    // Act
    const issues = issuesOf(() => parseOrThrow(runInputSchema, input));

    // Assert
    expect(issues).toEqual([
      {
        field: 'candidates[0].environment.MY_DOWNLOAD_SETTING',
        given: 'a value holding a Hugging Face token',
        expected: EXPECTED,
      },
    ]);
  });

  it('fails when an environment range lists a secret access key among its values', () => {
    // Prepare
    const input = runInput({ environmentRanges: { OPTION_X: ['1', SECRET_KEY] } });

    // Act
    const issues = issuesOf(() => parseOrThrow(runInputSchema, input));

    // Assert
    expect(issues).toEqual([
      {
        field: 'environmentRanges.OPTION_X',
        given: 'a value shaped like an AWS secret access key',
        expected: EXPECTED,
      },
    ]);
  });

  it('fails when an async endpoint’s environment holds HF_TOKEN', () => {
    // Prepare
    const input = {
      endpoint: {
        modelDataUrl: 's3://mso-artifacts/models/cnn/model.tar.gz',
        framework: 'pytorch',
        instanceType: 'ml.c5.xlarge',
        environment: { HF_TOKEN: 'anything' },
      },
      inputs: ['s3://mso-artifacts/inputs/1.json'],
    };

    // Act
    const issues = issuesOf(() => parseAsyncRunInput(input));

    // Assert
    expect(issues).toEqual([
      { field: 'endpoint.environment.HF_TOKEN', given: 'a credential, by its name', expected: EXPECTED },
    ]);
  });

  it('keeps ordinary settings: token counts, model ids, a secret’s ARN, a commit hash', () => {
    // Prepare
    const ordinary: Record<string, string> = {
      MAX_NEW_TOKENS: '512',
      MAX_TOTAL_TOKENS: '4096',
      HF_MAX_BATCH_PREFILL_TOKENS: '8192',
      HF_MODEL_ID: 'distilbert/distilbert-base-uncased',
      HF_TASK: 'text-classification',
      SAGEMAKER_PROGRAM: 'inference.py',
      HF_TOKEN_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:hf-token-AbCdEf',
      MODEL_REVISION: '9f3c2b1a0e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b',
      OMP_NUM_THREADS: '4',
    };

    // Act
    const refused = Object.entries(ordinary).filter(([name, value]) => credentialInEnvironment(name, value));

    // Assert
    expect(refused).toEqual([]);
  });
});

import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { deployAsyncEndpoint } from '../../../../core/steps/async/deploy-async-endpoint.js';
import type { PrepareAsyncEndpointDeps } from '../../../../core/async/endpoint-loop.js';
import { SageMakerModelHost } from '../../../../lambdas/adapters/sagemaker-model-host.js';
import { FakeScalingRegistry, ScriptedSageMaker } from '../../async/support/async-fakes.js';
import {
  CONFIG,
  CREATING,
  DEPLOY_SPEC,
  deployPlan,
  ENDPOINT,
  endpointLoopDeps,
  MODEL,
  OUTPUT,
  REUSED,
  reusePlan,
  RUN_ID,
  TAGS,
} from '../../async/support/endpoint-loop.js';

let sagemaker: ScriptedSageMaker;
let scaling: FakeScalingRegistry;

beforeEach(() => {
  sagemaker = new ScriptedSageMaker();
  scaling = new FakeScalingRegistry(sagemaker.calls);
});

function deps(overrides: Partial<PrepareAsyncEndpointDeps> = {}): PrepareAsyncEndpointDeps {
  return endpointLoopDeps(sagemaker, scaling, overrides);
}

describe('deployAsyncEndpoint', () => {
  it('creates the model, the async endpoint config and the endpoint, in that order, tagged with the run', async () => {
    // Act
    const state = await deployAsyncEndpoint({ plan: deployPlan(), endpointState: CREATING }, deps());

    // Assert
    expect(sagemaker.calls).toEqual([
      `CreateModel ${MODEL}`,
      `CreateEndpointConfig ${CONFIG}`,
      `CreateEndpoint ${ENDPOINT}`,
    ]);
    expect(sagemaker.models.get(MODEL)).toEqual({
      modelName: MODEL,
      image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.6.0-cpu-py312',
      modelDataUrl: 's3://mso-artifacts/models/cnn/model.tar.gz',
      environment: { OMP_NUM_THREADS: '2' },
      tags: TAGS,
    });
    expect(sagemaker.endpointConfigs.get(CONFIG)).toEqual({
      variantName: 'AllTraffic',
      modelName: MODEL,
      instanceType: 'ml.c5.xlarge',
      initialInstanceCount: 1,
    });
    expect(sagemaker.tagsOf('endpoint', ENDPOINT)).toEqual(TAGS);
    expect(sagemaker.tagsOf('endpoint-config', CONFIG)).toEqual(TAGS);
    expect(state).toEqual(CREATING);
  });

  it('configures async inference: output and failures under the run prefix, the topics, the key, the concurrency', async () => {
    // Act
    await deployAsyncEndpoint({ plan: deployPlan(), endpointState: CREATING }, deps());

    // Assert
    expect(sagemaker.asyncInferenceConfigs.get(CONFIG)).toEqual({
      s3OutputPath: `s3://mso-artifacts/runs/${RUN_ID}/async/output/`,
      s3FailurePath: `s3://mso-artifacts/runs/${RUN_ID}/async/failures/`,
      kmsKeyId: OUTPUT.kmsKeyId,
      successTopicArn: OUTPUT.successTopicArn,
      errorTopicArn: OUTPUT.errorTopicArn,
      maxConcurrentInvocationsPerInstance: 4,
    });
  });

  it('leaves the key and the concurrency to SageMaker when none is set', async () => {
    // Arrange
    const withoutConcurrency = deployPlan({ endpoint: { ...deployPlan().endpoint, deploy: DEPLOY_SPEC } });

    // Act
    await deployAsyncEndpoint(
      { plan: withoutConcurrency, endpointState: CREATING },
      deps({ output: { successTopicArn: OUTPUT.successTopicArn, errorTopicArn: OUTPUT.errorTopicArn } }),
    );

    // Assert
    expect(sagemaker.asyncInferenceConfigs.get(CONFIG)).toEqual({
      s3OutputPath: `s3://mso-artifacts/runs/${RUN_ID}/async/output/`,
      s3FailurePath: `s3://mso-artifacts/runs/${RUN_ID}/async/failures/`,
      successTopicArn: OUTPUT.successTopicArn,
      errorTopicArn: OUTPUT.errorTopicArn,
    });
  });

  it('creates a Hub model without ModelDataUrl, with its Hub environment (the exact CreateModel input)', async () => {
    // Arrange
    const client = mockClient(SageMakerClient);
    client.on(CreateModelCommand).resolves({ ModelArn: 'arn:model' });
    client.on(CreateEndpointConfigCommand).resolves({ EndpointConfigArn: 'arn:config' });
    client.on(CreateEndpointCommand).resolves({ EndpointArn: 'arn:endpoint' });
    const host = new SageMakerModelHost({
      client: new SageMakerClient({ region: 'us-east-1' }),
      executionRoleArn: 'arn:aws:iam::123456789012:role/mso-sagemaker-execution',
    });
    const image =
      '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.6.0-transformers4.49.0-cpu-py312-ubuntu22.04';
    const hubSpec = {
      image,
      environment: {
        HF_MODEL_ID: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english',
        HF_TASK: 'text-classification',
      },
      instanceType: 'ml.m5.xlarge',
      maxInstanceCount: 1,
      targetBacklogPerInstance: 5,
    };
    const plan = deployPlan({ endpoint: { ...deployPlan().endpoint, deploy: hubSpec } });

    try {
      // Act
      await deployAsyncEndpoint({ plan, endpointState: CREATING }, deps({ host }));

      // Assert
      expect(client.commandCalls(CreateModelCommand).map((call) => call.args[0].input)).toEqual([
        {
          ModelName: MODEL,
          ExecutionRoleArn: 'arn:aws:iam::123456789012:role/mso-sagemaker-execution',
          PrimaryContainer: {
            Image: image,
            Environment: {
              HF_MODEL_ID: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english',
              HF_TASK: 'text-classification',
            },
          },
          Tags: [
            { Key: 'mso:project', Value: 'model-serving-optimizer' },
            { Key: 'mso:run-id', Value: RUN_ID },
          ],
        },
      ]);
    } finally {
      client.restore();
    }
  });

  it('fails when the plan reuses an endpoint instead of deploying one', async () => {
    // Act
    const deploy = deployAsyncEndpoint({ plan: reusePlan(), endpointState: CREATING }, deps());

    // Assert
    await expect(deploy).rejects.toThrow(`endpoint ${REUSED} is not one the run deploys`);
    expect(sagemaker.calls).toEqual([]);
  });
});

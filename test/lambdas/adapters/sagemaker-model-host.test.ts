import {
  AddTagsCommand,
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DeleteEndpointCommand,
  DeleteEndpointConfigCommand,
  DeleteModelCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  ListCompilationJobsCommand,
  ListOptimizationJobsCommand,
  ListEndpointConfigsCommand,
  ListEndpointsCommand,
  ListModelsCommand,
  ListTagsCommand,
  ResourceLimitExceeded,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { QuotaExceededError, TransientServiceError } from '../../../core/contracts/errors.js';
import { SageMakerModelHost } from '../../../lambdas/adapters/sagemaker-model-host.js';
import { sageMakerError } from '../support/sdk-errors.js';

const ROLE_ARN = 'arn:aws:iam::123456789012:role/mso-sagemaker-execution';
const PREFIX = 'mso-nightly-1a2b3c4d-';
const TAGS = { 'mso:project': 'model-serving-optimizer', 'mso:run-id': 'nightly', 'mso:candidate-id': 'c1' };
const SAGEMAKER_TAGS = [
  { Key: 'mso:candidate-id', Value: 'c1' },
  { Key: 'mso:project', Value: 'model-serving-optimizer' },
  { Key: 'mso:run-id', Value: 'nightly' },
];

const ASYNC_SPEC = {
  s3OutputPath: 's3://mso-async-output/results/',
  s3FailurePath: 's3://mso-async-output/failures/',
  kmsKeyId: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  successTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
  errorTopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
  maxConcurrentInvocationsPerInstance: 4,
};
const SDK_ASYNC_CONFIG = {
  OutputConfig: {
    S3OutputPath: 's3://mso-async-output/results/',
    S3FailurePath: 's3://mso-async-output/failures/',
    KmsKeyId: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    NotificationConfig: {
      SuccessTopic: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
      ErrorTopic: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
    },
  },
  ClientConfig: { MaxConcurrentInvocationsPerInstance: 4 },
};

const sagemaker = mockClient(SageMakerClient);
const host = new SageMakerModelHost({
  client: new SageMakerClient({ region: 'us-east-1' }),
  executionRoleArn: ROLE_ARN,
});

function endpointSummary(name: string) {
  return {
    EndpointName: name,
    EndpointArn: `arn:${name}`,
    CreationTime: new Date(),
    LastModifiedTime: new Date(),
    EndpointStatus: 'InService' as const,
  };
}

function inputOf<T>(calls: readonly { args: readonly [{ input: T }] }[], index = 0): T | undefined {
  return calls[index]?.args[0].input;
}

describe('SageMakerModelHost', () => {
  beforeEach(() => {
    sagemaker.reset();
  });

  describe('creating', () => {
    it('creates a model with the execution role, image, artifact, environment and tags', async () => {
      // Arrange
      sagemaker.on(CreateModelCommand).resolves({ ModelArn: 'arn:model' });

      // Act
      await host.createModel({
        modelName: `${PREFIX}m-c1`,
        image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.1-cpu-py310',
        modelDataUrl: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
        environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '2' },
        tags: TAGS,
      });

      // Assert
      expect(inputOf(sagemaker.commandCalls(CreateModelCommand))).toEqual({
        ModelName: `${PREFIX}m-c1`,
        ExecutionRoleArn: ROLE_ARN,
        PrimaryContainer: {
          Image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.1-cpu-py310',
          ModelDataUrl: 's3://mso-artifacts/runs/nightly/model/model.tar.gz',
          Environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '2' },
        },
        Tags: SAGEMAKER_TAGS,
      });
    });

    it('creates a real-time endpoint config with one variant of the instance type and count', async () => {
      sagemaker.on(CreateEndpointConfigCommand).resolves({});

      await host.createEndpointConfig({
        endpointConfigName: `${PREFIX}ec-c1`,
        variant: {
          variantName: 'AllTraffic',
          modelName: `${PREFIX}m-c1`,
          instanceType: 'ml.c5.xlarge',
          initialInstanceCount: 2,
        },
        tags: TAGS,
      });

      expect(inputOf(sagemaker.commandCalls(CreateEndpointConfigCommand))).toEqual({
        EndpointConfigName: `${PREFIX}ec-c1`,
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            ModelName: `${PREFIX}m-c1`,
            InstanceType: 'ml.c5.xlarge',
            InitialInstanceCount: 2,
          },
        ],
        Tags: SAGEMAKER_TAGS,
      });
    });

    it('creates a real-time endpoint config with the variant’s routing strategy as its RoutingConfig', async () => {
      // Arrange
      sagemaker.on(CreateEndpointConfigCommand).resolves({});

      // Act
      await host.createEndpointConfig({
        endpointConfigName: `${PREFIX}ec-c2`,
        variant: {
          variantName: 'AllTraffic',
          modelName: `${PREFIX}m-c2`,
          instanceType: 'ml.c5.xlarge',
          initialInstanceCount: 2,
          routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
        },
        tags: TAGS,
      });

      // Assert
      expect(inputOf(sagemaker.commandCalls(CreateEndpointConfigCommand))).toEqual({
        EndpointConfigName: `${PREFIX}ec-c2`,
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            ModelName: `${PREFIX}m-c2`,
            InstanceType: 'ml.c5.xlarge',
            InitialInstanceCount: 2,
            RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
          },
        ],
        Tags: SAGEMAKER_TAGS,
      });
    });

    it('creates an async endpoint config with S3 output and failure paths, SNS topics, KMS key and concurrency', async () => {
      // Arrange
      sagemaker.on(CreateEndpointConfigCommand).resolves({});

      // Act
      await host.createEndpointConfig({
        endpointConfigName: `${PREFIX}ec-async`,
        variant: {
          variantName: 'AllTraffic',
          modelName: `${PREFIX}m-async`,
          instanceType: 'ml.c5.xlarge',
          initialInstanceCount: 1,
        },
        tags: TAGS,
        asyncInference: ASYNC_SPEC,
      });

      // Assert
      expect(inputOf(sagemaker.commandCalls(CreateEndpointConfigCommand))).toEqual({
        EndpointConfigName: `${PREFIX}ec-async`,
        ProductionVariants: [
          {
            VariantName: 'AllTraffic',
            ModelName: `${PREFIX}m-async`,
            InstanceType: 'ml.c5.xlarge',
            InitialInstanceCount: 1,
          },
        ],
        AsyncInferenceConfig: SDK_ASYNC_CONFIG,
        Tags: SAGEMAKER_TAGS,
      });
    });

    it('leaves out KmsKeyId and ClientConfig when the async spec does not set them', async () => {
      sagemaker.on(CreateEndpointConfigCommand).resolves({});
      const { kmsKeyId: _key, maxConcurrentInvocationsPerInstance: _concurrency, ...minimal } = ASYNC_SPEC;

      await host.createEndpointConfig({
        endpointConfigName: `${PREFIX}ec-async`,
        variant: {
          variantName: 'AllTraffic',
          modelName: 'm',
          instanceType: 'ml.c5.xlarge',
          initialInstanceCount: 1,
        },
        tags: {},
        asyncInference: minimal,
      });

      expect(inputOf(sagemaker.commandCalls(CreateEndpointConfigCommand))?.AsyncInferenceConfig).toEqual({
        OutputConfig: {
          S3OutputPath: 's3://mso-async-output/results/',
          S3FailurePath: 's3://mso-async-output/failures/',
          NotificationConfig: {
            SuccessTopic: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
            ErrorTopic: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
          },
        },
      });
    });

    it('creates a serverless endpoint config with memory and concurrency instead of instances', async () => {
      sagemaker.on(CreateEndpointConfigCommand).resolves({});

      await host.createEndpointConfig({
        endpointConfigName: `${PREFIX}ec-c2`,
        variant: {
          variantName: 'AllTraffic',
          modelName: `${PREFIX}m-c2`,
          serverless: { memorySizeMb: 4096, maxConcurrency: 20 },
        },
        tags: TAGS,
      });

      expect(inputOf(sagemaker.commandCalls(CreateEndpointConfigCommand))?.ProductionVariants).toEqual([
        {
          VariantName: 'AllTraffic',
          ModelName: `${PREFIX}m-c2`,
          ServerlessConfig: { MemorySizeInMB: 4096, MaxConcurrency: 20 },
        },
      ]);
    });

    it('creates an endpoint from its config, tagged', async () => {
      sagemaker.on(CreateEndpointCommand).resolves({ EndpointArn: 'arn:endpoint' });

      await host.createEndpoint({
        endpointName: `${PREFIX}ep-c1`,
        endpointConfigName: `${PREFIX}ec-c1`,
        tags: TAGS,
      });

      expect(inputOf(sagemaker.commandCalls(CreateEndpointCommand))).toEqual({
        EndpointName: `${PREFIX}ep-c1`,
        EndpointConfigName: `${PREFIX}ec-c1`,
        Tags: SAGEMAKER_TAGS,
      });
    });

    it('succeeds when the model already exists (a retried step)', async () => {
      sagemaker
        .on(CreateModelCommand)
        .rejects(
          sageMakerError(
            'ValidationException',
            `Cannot create already existing model "arn:aws:sagemaker:us-east-1:123456789012:model/${PREFIX}m-c1".`,
          ),
        );

      await expect(
        host.createModel({
          modelName: `${PREFIX}m-c1`,
          image: 'img',
          modelDataUrl: 's3://b/k',
          environment: {},
          tags: {},
        }),
      ).resolves.toBeUndefined();
    });

    it('succeeds when the endpoint already exists (a retried step)', async () => {
      sagemaker
        .on(CreateEndpointCommand)
        .rejects(
          sageMakerError(
            'ValidationException',
            `Cannot create already existing endpoint "arn:…/${PREFIX}ep-c1".`,
          ),
        );

      await expect(
        host.createEndpoint({
          endpointName: `${PREFIX}ep-c1`,
          endpointConfigName: `${PREFIX}ec-c1`,
          tags: {},
        }),
      ).resolves.toBeUndefined();
    });

    it("fails when the account's instance quota is reached, with QuotaExceededError naming the instance type", async () => {
      // Arrange
      const sagemakerMessage =
        "The account-level service limit 'ml.g5.xlarge for endpoint usage' is 0 Instances, with current " +
        'utilization of 0 Instances and a request delta of 1 Instances.';
      sagemaker
        .on(CreateEndpointCommand)
        .rejects(new ResourceLimitExceeded({ message: sagemakerMessage, $metadata: {} }));
      sagemaker
        .on(DescribeEndpointConfigCommand, { EndpointConfigName: `${PREFIX}ec-c3` })
        .resolves({ ProductionVariants: [{ VariantName: 'AllTraffic', InstanceType: 'ml.g5.xlarge' }] });

      // Act
      const error = await host
        .createEndpoint({ endpointName: `${PREFIX}ep-c3`, endpointConfigName: `${PREFIX}ec-c3`, tags: {} })
        .catch((e: unknown) => e);

      // Assert
      expect(error).toBeInstanceOf(QuotaExceededError);
      const quota = error as QuotaExceededError;
      expect(quota.name).toBe('QuotaExceededError');
      expect(quota.message).toContain(`endpoint ${PREFIX}ep-c3`);
      expect(quota.message).toContain(sagemakerMessage);
      expect(quota.message).toContain(
        'Request a quota increase for "ml.g5.xlarge for endpoint usage" in Service Quotas',
      );
      expect(quota.details).toMatchObject({ instanceType: 'ml.g5.xlarge', operation: 'CreateEndpoint' });
    });

    it('fails when throttled beyond the SDK retries, with TransientServiceError', async () => {
      sagemaker
        .on(CreateEndpointConfigCommand)
        .rejects(sageMakerError('ThrottlingException', 'Rate exceeded'));

      const error = await host
        .createEndpointConfig({
          endpointConfigName: `${PREFIX}ec-c1`,
          variant: {
            variantName: 'AllTraffic',
            modelName: 'm',
            instanceType: 'ml.c5.xlarge',
            initialInstanceCount: 1,
          },
          tags: {},
        })
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(TransientServiceError);
      expect((error as Error).message).toContain(
        `CreateEndpointConfig for endpoint configuration ${PREFIX}ec-c1`,
      );
    });

    it('fails when SageMaker answers 5xx, with TransientServiceError', async () => {
      sagemaker
        .on(CreateModelCommand)
        .rejects(sageMakerError('InternalFailure', 'oops', { status: 500, fault: 'server' }));

      await expect(
        host.createModel({
          modelName: 'm',
          image: 'img',
          modelDataUrl: 's3://b/k',
          environment: {},
          tags: {},
        }),
      ).rejects.toBeInstanceOf(TransientServiceError);
    });

    it('fails when SageMaker refuses the request, rethrowing the SDK error unchanged', async () => {
      const invalid = sageMakerError('ValidationException', 'Could not access model data at s3://b/k.');
      sagemaker.on(CreateModelCommand).rejects(invalid);

      await expect(
        host.createModel({
          modelName: 'm',
          image: 'img',
          modelDataUrl: 's3://b/k',
          environment: {},
          tags: {},
        }),
      ).rejects.toBe(invalid);
    });

    it('fails when creating a model without an execution role, before calling SageMaker', async () => {
      const roleless = new SageMakerModelHost({ client: new SageMakerClient({ region: 'us-east-1' }) });

      await expect(
        roleless.createModel({
          modelName: 'm',
          image: 'img',
          modelDataUrl: 's3://b/k',
          environment: {},
          tags: {},
        }),
      ).rejects.toThrow(/SAGEMAKER_EXECUTION_ROLE_ARN/);
      expect(sagemaker.calls()).toHaveLength(0);
    });
  });

  describe('describing', () => {
    it('describes an in-service endpoint with the instance type and count of its first variant', async () => {
      sagemaker.on(DescribeEndpointCommand, { EndpointName: `${PREFIX}ep-c1` }).resolves({
        EndpointName: `${PREFIX}ep-c1`,
        EndpointStatus: 'InService',
        EndpointConfigName: `${PREFIX}ec-c1`,
        ProductionVariants: [{ VariantName: 'AllTraffic', CurrentInstanceCount: 2 }],
      });
      sagemaker.on(DescribeEndpointConfigCommand, { EndpointConfigName: `${PREFIX}ec-c1` }).resolves({
        ProductionVariants: [
          { VariantName: 'AllTraffic', InstanceType: 'ml.c5.xlarge', InitialInstanceCount: 1 },
        ],
      });

      await expect(host.describeEndpoint(`${PREFIX}ep-c1`)).resolves.toEqual({
        endpointName: `${PREFIX}ep-c1`,
        status: 'InService',
        variantName: 'AllTraffic',
        variantNames: ['AllTraffic'],
        currentInstanceCount: 2,
        instanceType: 'ml.c5.xlarge',
        instanceCount: 2,
      });
    });

    it('takes the instance type of the live first variant from its own config entry, and lists every variant', async () => {
      // Arrange: the config lists the variants in another order than the endpoint.
      sagemaker.on(DescribeEndpointCommand, { EndpointName: 'prod-resnet' }).resolves({
        EndpointName: 'prod-resnet',
        EndpointStatus: 'InService',
        EndpointConfigName: 'prod-resnet-config',
        ProductionVariants: [
          { VariantName: 'blue', CurrentInstanceCount: 3 },
          { VariantName: 'green', CurrentInstanceCount: 1 },
        ],
      });
      sagemaker.on(DescribeEndpointConfigCommand, { EndpointConfigName: 'prod-resnet-config' }).resolves({
        ProductionVariants: [
          { VariantName: 'green', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 },
          { VariantName: 'blue', InstanceType: 'ml.c5.xlarge', InitialInstanceCount: 2 },
        ],
      });

      // Act
      const description = await host.describeEndpoint('prod-resnet');

      // Assert
      expect(description).toEqual({
        endpointName: 'prod-resnet',
        status: 'InService',
        variantName: 'blue',
        variantNames: ['blue', 'green'],
        currentInstanceCount: 3,
        instanceType: 'ml.c5.xlarge',
        instanceCount: 3,
      });
    });

    it('describes an async endpoint scaled in to zero with its AsyncInferenceConfig, from the one config read', async () => {
      // Arrange
      sagemaker.on(DescribeEndpointCommand, { EndpointName: `${PREFIX}ep-async` }).resolves({
        EndpointName: `${PREFIX}ep-async`,
        EndpointStatus: 'InService',
        EndpointConfigName: `${PREFIX}ec-async`,
        ProductionVariants: [{ VariantName: 'AllTraffic', CurrentInstanceCount: 0, DesiredInstanceCount: 0 }],
      });
      sagemaker.on(DescribeEndpointConfigCommand, { EndpointConfigName: `${PREFIX}ec-async` }).resolves({
        ProductionVariants: [
          { VariantName: 'AllTraffic', InstanceType: 'ml.c5.xlarge', InitialInstanceCount: 1 },
        ],
        AsyncInferenceConfig: SDK_ASYNC_CONFIG,
      });

      // Act
      const description = await host.describeEndpoint(`${PREFIX}ep-async`);

      // Assert
      expect(description).toEqual({
        endpointName: `${PREFIX}ep-async`,
        status: 'InService',
        variantName: 'AllTraffic',
        variantNames: ['AllTraffic'],
        currentInstanceCount: 0,
        instanceType: 'ml.c5.xlarge',
        instanceCount: 0,
        asyncInference: ASYNC_SPEC,
      });
      expect(sagemaker.commandCalls(DescribeEndpointConfigCommand)).toHaveLength(1);
    });

    it('describes an updating endpoint with its async settings, so a reused endpoint is recognized', async () => {
      sagemaker.on(DescribeEndpointCommand).resolves({
        EndpointName: 'e',
        EndpointStatus: 'Updating',
        EndpointConfigName: 'ec',
        ProductionVariants: [{ VariantName: 'v1', CurrentInstanceCount: 1 }],
      });
      sagemaker.on(DescribeEndpointConfigCommand, { EndpointConfigName: 'ec' }).resolves({
        ProductionVariants: [{ VariantName: 'v1', InstanceType: 'ml.m5.large', InitialInstanceCount: 1 }],
        AsyncInferenceConfig: { OutputConfig: { S3OutputPath: 's3://theirs/out/' } },
      });

      const description = await host.describeEndpoint('e');

      expect(description?.asyncInference).toEqual({ s3OutputPath: 's3://theirs/out/' });
      expect(description?.variantName).toBe('v1');
    });

    it('leaves asyncInference out for a real-time endpoint', async () => {
      sagemaker.on(DescribeEndpointCommand).resolves({
        EndpointName: 'e',
        EndpointStatus: 'InService',
        EndpointConfigName: 'ec',
      });
      sagemaker.on(DescribeEndpointConfigCommand).resolves({
        ProductionVariants: [
          { VariantName: 'AllTraffic', InstanceType: 'ml.m5.large', InitialInstanceCount: 1 },
        ],
      });

      await expect(host.describeEndpoint('e')).resolves.toEqual({
        endpointName: 'e',
        status: 'InService',
        variantName: 'AllTraffic',
        instanceType: 'ml.m5.large',
        instanceCount: 1,
      });
    });

    it('describes a creating endpoint without reading its config', async () => {
      sagemaker
        .on(DescribeEndpointCommand)
        .resolves({ EndpointName: 'e', EndpointStatus: 'Creating', EndpointConfigName: 'ec' });

      await expect(host.describeEndpoint('e')).resolves.toEqual({ endpointName: 'e', status: 'Creating' });
      expect(sagemaker.commandCalls(DescribeEndpointConfigCommand)).toHaveLength(0);
    });

    it("describes a failed endpoint with SageMaker's failure reason", async () => {
      sagemaker.on(DescribeEndpointCommand).resolves({
        EndpointName: 'e',
        EndpointStatus: 'Failed',
        FailureReason:
          'The primary container for production variant AllTraffic did not pass the ping health check.',
      });

      await expect(host.describeEndpoint('e')).resolves.toEqual({
        endpointName: 'e',
        status: 'Failed',
        failureReason:
          'The primary container for production variant AllTraffic did not pass the ping health check.',
      });
    });

    it('returns undefined for an endpoint that does not exist', async () => {
      sagemaker
        .on(DescribeEndpointCommand)
        .rejects(
          sageMakerError(
            'ValidationException',
            'Could not find endpoint "arn:aws:sagemaker:us-east-1:1:endpoint/e".',
          ),
        );

      await expect(host.describeEndpoint('e')).resolves.toBeUndefined();
    });
  });

  describe('deleting', () => {
    it.each([
      ['endpoint', DeleteEndpointCommand, { EndpointName: 'x' }, (name: string) => host.deleteEndpoint(name)],
      [
        'endpoint config',
        DeleteEndpointConfigCommand,
        { EndpointConfigName: 'x' },
        (name: string) => host.deleteEndpointConfig(name),
      ],
      ['model', DeleteModelCommand, { ModelName: 'x' }, (name: string) => host.deleteModel(name)],
    ])('deletes the %s by name and says so', async (_kind, command, input, remove) => {
      sagemaker.on(command as any).resolves({});

      await expect(remove('x')).resolves.toBe(true);
      expect(sagemaker.commandCalls(command as any)[0]?.args[0].input).toEqual(input);
    });

    it.each([
      [
        'endpoint',
        DeleteEndpointCommand,
        'Could not find endpoint "arn:…/x".',
        (name: string) => host.deleteEndpoint(name),
      ],
      [
        'endpoint config',
        DeleteEndpointConfigCommand,
        'Could not find endpoint configuration "arn:…/x".',
        (name: string) => host.deleteEndpointConfig(name),
      ],
      [
        'model',
        DeleteModelCommand,
        'Could not find model "arn:…/x".',
        (name: string) => host.deleteModel(name),
      ],
    ])('returns false when the %s to delete does not exist', async (_kind, command, message, remove) => {
      sagemaker.on(command as any).rejects(sageMakerError('ValidationException', message));

      await expect(remove('x')).resolves.toBe(false);
    });
  });

  describe('listing run resources', () => {
    it('follows every page and keeps only names that start with the prefix', async () => {
      // Arrange: two pages of endpoints; a name that only contains the prefix is dropped.
      sagemaker.on(ListEndpointsCommand).resolvesOnce({
        Endpoints: [endpointSummary(`${PREFIX}ep-c1`), endpointSummary(`copy-of-${PREFIX}ep-c1`)],
        NextToken: 'page-2',
      });
      sagemaker
        .on(ListEndpointsCommand, { NextToken: 'page-2' })
        .resolves({ Endpoints: [endpointSummary(`${PREFIX}ep-c2`)] });
      sagemaker.on(ListEndpointConfigsCommand).resolves({
        EndpointConfigs: [
          { EndpointConfigName: `${PREFIX}ec-c1`, EndpointConfigArn: 'a', CreationTime: new Date() },
        ],
      });
      sagemaker.on(ListModelsCommand).resolvesOnce({
        Models: [{ ModelName: `${PREFIX}m-c1`, ModelArn: 'a', CreationTime: new Date() }],
        NextToken: 'm2',
      });
      sagemaker
        .on(ListModelsCommand, { NextToken: 'm2' })
        .resolves({ Models: [{ ModelName: `${PREFIX}m-c2`, ModelArn: 'b', CreationTime: new Date() }] });
      sagemaker.on(ListCompilationJobsCommand).resolves({ CompilationJobSummaries: [] });
      sagemaker.on(ListOptimizationJobsCommand).resolves({
        OptimizationJobSummaries: [
          {
            OptimizationJobName: `${PREFIX}oj-g5-awq`,
            OptimizationJobArn: 'arn:oj',
            OptimizationJobStatus: 'INPROGRESS',
            CreationTime: new Date(),
            DeploymentInstanceType: 'ml.g5.xlarge',
            OptimizationTypes: ['Quantization'],
          },
        ],
      });

      // Act
      const resources = await host.listRunResources('nightly', PREFIX);

      // Assert
      expect(resources).toEqual({
        endpoints: [`${PREFIX}ep-c1`, `${PREFIX}ep-c2`],
        endpointConfigs: [`${PREFIX}ec-c1`],
        models: [`${PREFIX}m-c1`, `${PREFIX}m-c2`],
        compilationJobs: [],
        optimizationJobs: [`${PREFIX}oj-g5-awq`],
      });
      expect(sagemaker.commandCalls(ListEndpointsCommand)).toHaveLength(2);
      for (const command of [
        ListEndpointsCommand,
        ListEndpointConfigsCommand,
        ListModelsCommand,
        ListCompilationJobsCommand,
        ListOptimizationJobsCommand,
      ]) {
        expect(sagemaker.commandCalls(command as any)[0]?.args[0].input).toMatchObject({
          NameContains: PREFIX,
          MaxResults: 100,
        });
      }
    });
  });

  describe('listing project resources', () => {
    const CUTOFF = Date.UTC(2026, 0, 9, 12, 0, 0);
    const CREATED = new Date(Date.UTC(2026, 0, 8, 0, 0, 0));
    const EP = 'mso-old-1a2b3c4d-ep-c1';
    const EC = 'mso-old-1a2b3c4d-ec-c1';
    const MODEL = 'mso-old-1a2b3c4d-m-c1';
    const PROJECT_TAG = { Key: 'mso:project', Value: 'model-serving-optimizer' };

    function arrangeOneRun(): void {
      sagemaker.on(ListEndpointsCommand).resolvesOnce({
        Endpoints: [
          { ...endpointSummary(EP), EndpointArn: `arn:${EP}`, CreationTime: CREATED },
          endpointSummary('not-mso-ep'),
        ],
        NextToken: 'endpoints-2',
      });
      sagemaker
        .on(ListEndpointsCommand, { NextToken: 'endpoints-2' })
        .resolves({ Endpoints: [endpointSummary('mso-gone-ep')] });
      sagemaker.on(ListEndpointConfigsCommand).resolves({
        EndpointConfigs: [{ EndpointConfigName: EC, EndpointConfigArn: `arn:${EC}`, CreationTime: CREATED }],
      });
      sagemaker.on(ListModelsCommand).resolves({
        Models: [{ ModelName: MODEL, ModelArn: `arn:${MODEL}`, CreationTime: CREATED }],
      });
      // Two pages of tags for the endpoint; the config tagged; the model untagged.
      sagemaker
        .on(ListTagsCommand, { ResourceArn: `arn:${EP}` })
        .resolves({ Tags: [PROJECT_TAG], NextToken: 'tags-2' });
      sagemaker
        .on(ListTagsCommand, { ResourceArn: `arn:${EP}`, NextToken: 'tags-2' })
        .resolves({ Tags: [{ Key: 'mso:run-id', Value: 'old' }] });
      sagemaker.on(ListTagsCommand, { ResourceArn: `arn:${EC}` }).resolves({ Tags: [PROJECT_TAG] });
      sagemaker.on(ListTagsCommand, { ResourceArn: `arn:${MODEL}` }).resolves({ Tags: [] });
      // Deleted between the listing and its tags: left out.
      sagemaker
        .on(ListTagsCommand, { ResourceArn: 'arn:mso-gone-ep' })
        .rejects(sageMakerError('ValidationException', 'Could not find endpoint "arn:mso-gone-ep".'));
      sagemaker.on(DescribeEndpointCommand, { EndpointName: EP }).resolves({
        EndpointName: EP,
        EndpointStatus: 'InService',
        EndpointConfigName: EC,
        ProductionVariants: [{ VariantName: 'AllTraffic' }],
      });
      sagemaker.on(DescribeEndpointConfigCommand, { EndpointConfigName: EC }).resolves({
        EndpointConfigName: EC,
        ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: MODEL }],
      });
    }

    it('lists endpoints, configs and models over every page with their tags, age and what they use', async () => {
      // Arrange
      arrangeOneRun();

      // Act
      const resources = await host.listProjectResources({ namePrefix: 'mso-', createdBeforeEpochMs: CUTOFF });

      // Assert
      const createdEpochMs = CREATED.getTime();
      expect(resources).toEqual({
        endpoints: [
          {
            name: EP,
            createdEpochMs,
            tags: { 'mso:project': 'model-serving-optimizer', 'mso:run-id': 'old' },
            status: 'InService',
            endpointConfigName: EC,
            variantNames: ['AllTraffic'],
            modelNames: [MODEL],
          },
        ],
        endpointConfigs: [
          {
            name: EC,
            createdEpochMs,
            tags: { 'mso:project': 'model-serving-optimizer' },
            modelNames: [MODEL],
          },
        ],
        models: [{ name: MODEL, createdEpochMs, tags: {} }],
      });
    });

    it('passes CreationTimeBefore for configs and models, and lists endpoints of every age', async () => {
      // Arrange
      arrangeOneRun();

      // Act
      await host.listProjectResources({ namePrefix: 'mso-', createdBeforeEpochMs: CUTOFF });

      // Assert
      const endpointsInput = inputOf(sagemaker.commandCalls(ListEndpointsCommand));
      expect(endpointsInput).toMatchObject({ NameContains: 'mso-', MaxResults: 100 });
      expect(endpointsInput).not.toHaveProperty('CreationTimeBefore');
      expect(sagemaker.commandCalls(ListEndpointsCommand)).toHaveLength(2);
      expect(inputOf(sagemaker.commandCalls(ListEndpointConfigsCommand))).toEqual({
        NameContains: 'mso-',
        CreationTimeBefore: new Date(CUTOFF),
        MaxResults: 100,
      });
      expect(inputOf(sagemaker.commandCalls(ListModelsCommand))).toEqual({
        NameContains: 'mso-',
        CreationTimeBefore: new Date(CUTOFF),
        MaxResults: 100,
      });
      // One ListTags per resource, and a second page for the endpoint (the paginator reuses its input
      // object, so the recorded inputs all show the last NextToken: only the ARNs are compared).
      const tagCalls = sagemaker.commandCalls(ListTagsCommand).map((call) => call.args[0].input);
      expect(tagCalls.map((input) => input.ResourceArn)).toEqual([
        `arn:${EP}`,
        `arn:${EP}`,
        'arn:mso-gone-ep',
        `arn:${EC}`,
        `arn:${MODEL}`,
      ]);
      expect(tagCalls.every((input) => input.MaxResults === 100)).toBe(true);
    });

    it('leaves out an endpoint deleted between its tags and its description', async () => {
      // Arrange
      sagemaker
        .on(ListEndpointsCommand)
        .resolves({ Endpoints: [{ ...endpointSummary(EP), EndpointArn: `arn:${EP}` }] });
      sagemaker.on(ListEndpointConfigsCommand).resolves({ EndpointConfigs: [] });
      sagemaker.on(ListModelsCommand).resolves({ Models: [] });
      sagemaker.on(ListTagsCommand).resolves({ Tags: [PROJECT_TAG] });
      sagemaker
        .on(DescribeEndpointCommand)
        .rejects(sageMakerError('ValidationException', `Could not find endpoint "arn:${EP}".`));

      // Act
      const resources = await host.listProjectResources({ namePrefix: 'mso-', createdBeforeEpochMs: CUTOFF });

      // Assert
      expect(resources.endpoints).toEqual([]);
    });

    it('fails when ListTags is throttled beyond the SDK retries, with TransientServiceError', async () => {
      // Arrange
      sagemaker
        .on(ListEndpointsCommand)
        .resolves({ Endpoints: [{ ...endpointSummary(EP), EndpointArn: `arn:${EP}` }] });
      sagemaker.on(ListEndpointConfigsCommand).resolves({ EndpointConfigs: [] });
      sagemaker.on(ListModelsCommand).resolves({ Models: [] });
      sagemaker.on(ListTagsCommand).rejects(sageMakerError('ThrottlingException', 'Rate exceeded'));

      // Act
      const listing = host.listProjectResources({ namePrefix: 'mso-', createdBeforeEpochMs: CUTOFF });

      // Assert
      await expect(listing).rejects.toBeInstanceOf(TransientServiceError);
      await expect(listing).rejects.toThrow(`ListTags for endpoint ${EP}`);
    });
  });
});

describe('SageMakerModelHost.addTags', () => {
  it('tags the endpoint, its config and its model by ARN, derived from the endpoint’s ARN', async () => {
    // Prepare
    sagemaker.reset();
    sagemaker.on(DescribeEndpointCommand).resolves({
      EndpointName: 'mso-run-ep-c1',
      EndpointArn: 'arn:aws:sagemaker:eu-west-1:123456789012:endpoint/mso-run-ep-c1',
      EndpointConfigName: 'mso-run-ec-c1',
      EndpointStatus: 'InService',
      CreationTime: new Date(0),
      LastModifiedTime: new Date(0),
    });
    sagemaker.on(AddTagsCommand).resolves({});

    // Act
    await host.addTags(
      { endpointName: 'mso-run-ep-c1', endpointConfigName: 'mso-run-ec-c1', modelName: 'mso-run-m-c1' },
      { 'mso:keep': 'true' },
    );

    // Assert
    expect(sagemaker.commandCalls(AddTagsCommand).map((call) => call.args[0].input)).toEqual([
      {
        ResourceArn: 'arn:aws:sagemaker:eu-west-1:123456789012:endpoint/mso-run-ep-c1',
        Tags: [{ Key: 'mso:keep', Value: 'true' }],
      },
      {
        ResourceArn: 'arn:aws:sagemaker:eu-west-1:123456789012:endpoint-config/mso-run-ec-c1',
        Tags: [{ Key: 'mso:keep', Value: 'true' }],
      },
      {
        ResourceArn: 'arn:aws:sagemaker:eu-west-1:123456789012:model/mso-run-m-c1',
        Tags: [{ Key: 'mso:keep', Value: 'true' }],
      },
    ]);
  });
});

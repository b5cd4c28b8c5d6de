import {
  CreateCompilationJobCommand,
  type CreateCompilationJobCommandInput,
  CreateEndpointCommand,
  CreateModelCommand,
  type CreateModelCommandInput,
} from '@aws-sdk/client-sagemaker';
import { PutScalingPolicyCommand } from '@aws-sdk/client-application-auto-scaling';
import { describe, expect, it } from '@jest/globals';
import { formatViolation, validateCommand, type ValidatedCommand } from './request-validator.js';

const ROLE = 'arn:aws:iam::123456789012:role/mso-sagemaker-execution';

function lines(command: unknown): string[] {
  return validateCommand(command as ValidatedCommand).map(formatViolation);
}

function compilationJob(
  overrides: Partial<CreateCompilationJobCommandInput> = {},
): CreateCompilationJobCommand {
  return new CreateCompilationJobCommand({
    CompilationJobName: 'mso-run-compile-ml-c5',
    RoleArn: ROLE,
    InputConfig: {
      S3Uri: 's3://your-artifacts-bucket/runs/run/model/model.tar.gz',
      DataInputConfig: '{"input0":[1,3,224,224]}',
      Framework: 'PYTORCH',
      FrameworkVersion: '2.0',
    },
    OutputConfig: {
      S3OutputLocation: 's3://your-artifacts-bucket/runs/run/compiled/ml_c5/',
      TargetDevice: 'ml_c5',
    },
    StoppingCondition: { MaxRuntimeInSeconds: 900 },
    Tags: [{ Key: 'mso:run', Value: 'run' }],
    ...overrides,
  });
}

function model(overrides: Partial<CreateModelCommandInput> = {}): CreateModelCommand {
  return new CreateModelCommand({
    ModelName: 'mso-run-model-cpu',
    ExecutionRoleArn: ROLE,
    PrimaryContainer: {
      Image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.0-cpu-py310',
      ModelDataUrl: 's3://your-artifacts-bucket/runs/run/model/model.tar.gz',
      Environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '2' },
    },
    ...overrides,
  });
}

const OUTPUT_CONFIG_PAGE = 'https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html';
const TAG_PAGE = 'https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_Tag.html';

describe('validateCommand', () => {
  it('accepts a request that follows the service’s declaration', () => {
    // Act
    const violations = lines(compilationJob());

    // Assert
    expect(violations).toEqual([]);
  });

  it('refuses a TargetDevice outside the SDK’s TargetDevice enum (ml_g5)', () => {
    // Prepare
    const command = compilationJob({
      OutputConfig: { S3OutputLocation: 's3://your-artifacts-bucket/out/', TargetDevice: 'ml_g5' as never },
    });

    // Act
    const violations = lines(command);

    // Assert
    expect(violations).toEqual([
      `CreateCompilationJob.OutputConfig.TargetDevice: not one of the values of the enum the service declares; given "ml_g5" (source: ${OUTPUT_CONFIG_PAGE})`,
    ]);
  });

  it('refuses a tag key with "#", which SageMaker’s Tag pattern excludes', () => {
    // Act
    const violations = lines(compilationJob({ Tags: [{ Key: 'team#1', Value: 'research' }] }));

    // Assert
    expect(violations).toEqual([
      `CreateCompilationJob.Tags[0].Key: does not match the pattern ^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$; given "team#1" (source: ${TAG_PAGE})`,
    ]);
  });

  it('accepts tags in any script (Unicode letters and numbers)', () => {
    // Act
    const violations = lines(compilationJob({ Tags: [{ Key: 'équipe', Value: 'données-日本語-٣' }] }));

    // Assert
    expect(violations).toEqual([]);
  });

  it('refuses a tag key with the reserved aws: prefix (the project table)', () => {
    // Act
    const violations = lines(compilationJob({ Tags: [{ Key: 'aws:team', Value: 'x' }] }));

    // Assert
    expect(violations).toEqual([
      'CreateCompilationJob.Tags[0].Key: does not match the pattern ^(?![aA][wW][sS]:); given "aws:team" ' +
        '(source: https://docs.aws.amazon.com/tag-editor/latest/userguide/tagging.html)',
    ]);
  });

  it('refuses a request without a required member', () => {
    // Prepare
    const command = new CreateEndpointCommand({ EndpointName: 'mso-run-ep-cpu' } as never);

    // Act
    const violations = lines(command);

    // Assert
    expect(violations).toEqual([
      'CreateEndpoint.EndpointConfigName: required member missing; given undefined ' +
        "(source: the SDK's schema of com.amazonaws.sagemaker#CreateEndpointInput)",
    ]);
  });

  it('refuses a member the structure does not declare', () => {
    // Prepare
    const command = new CreateEndpointCommand({
      EndpointName: 'mso-run-ep-cpu',
      EndpointConfigName: 'mso-run-epc-cpu',
      InstanceType: 'ml.c5.xlarge',
    } as never);

    // Act
    const violations = lines(command);

    // Assert
    expect(violations).toEqual([
      'CreateEndpoint.InstanceType: unknown member of CreateEndpointInput; given "ml.c5.xlarge" ' +
        "(source: the SDK's schema of com.amazonaws.sagemaker#CreateEndpointInput)",
    ]);
  });

  it('refuses a value of the wrong type', () => {
    // Prepare
    const command = compilationJob({ StoppingCondition: { MaxRuntimeInSeconds: '900' as never } });

    // Act
    const violations = lines(command);

    // Assert
    expect(violations).toEqual([
      'CreateCompilationJob.StoppingCondition.MaxRuntimeInSeconds: expected a number, got a string; given "900" ' +
        "(source: the SDK's schema of MaxRuntimeInSeconds)",
    ]);
  });

  it('refuses a FrameworkVersion shorter than Neo’s pattern allows ("2")', () => {
    // Prepare
    const command = compilationJob({
      InputConfig: {
        S3Uri: 's3://your-artifacts-bucket/m.tar.gz',
        Framework: 'PYTORCH',
        FrameworkVersion: '2',
      },
    });

    // Act
    const violations = lines(command);

    // Assert
    const page = 'https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_InputConfig.html';
    expect(violations).toEqual([
      `CreateCompilationJob.InputConfig.FrameworkVersion: does not match the pattern ^[0-9]\\.[A-Za-z0-9.]+$; given "2" (source: ${page})`,
      `CreateCompilationJob.InputConfig.FrameworkVersion: length 1, expected between 3 and 10 characters; given "2" (source: ${page})`,
    ]);
  });

  it('refuses a name longer than SageMaker’s 63 characters', () => {
    // Prepare
    const name = `mso-${'a'.repeat(60)}`;

    // Act
    const violations = lines(model({ ModelName: name }));

    // Assert
    expect(violations).toEqual([
      `CreateModel.ModelName: length 64, expected between 0 and 63 characters; given "${name}" ` +
        '(source: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_CreateModel.html)',
    ]);
  });

  it('refuses 51 tags, one more than SageMaker’s 50', () => {
    // Prepare
    const tags = Array.from({ length: 51 }, (_, index) => ({ Key: `k${index}`, Value: 'v' }));

    // Act
    const violations = lines(model({ Tags: tags }));

    // Assert
    expect(violations.map((line) => line.split(';')[0])).toEqual([
      'CreateModel.Tags: length 51, expected between 0 and 50 entries',
    ]);
  });

  it('refuses an environment variable name SageMaker’s EnvironmentKey pattern excludes', () => {
    // Prepare
    const command = model({
      PrimaryContainer: { Image: 'image:1', Environment: { 'MODEL-WORKERS': '2' } },
    });

    // Act
    const violations = lines(command);

    // Assert
    expect(violations).toEqual([
      'CreateModel.PrimaryContainer.Environment.MODEL-WORKERS (key): does not match the pattern ^[a-zA-Z_][a-zA-Z0-9_]*$; ' +
        'given "MODEL-WORKERS" (source: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ContainerDefinition.html)',
    ]);
  });

  it('refuses a MaxRuntimeInSeconds below Neo’s range', () => {
    // Act
    const violations = lines(compilationJob({ StoppingCondition: { MaxRuntimeInSeconds: 0 } }));

    // Assert
    expect(violations).toEqual([
      'CreateCompilationJob.StoppingCondition.MaxRuntimeInSeconds: value 0, expected at least 1; given 0 ' +
        '(source: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_StoppingCondition.html)',
    ]);
  });

  it('reads Java’s \\p{Print} in Application Auto Scaling’s PolicyName as printable ASCII', () => {
    // Prepare
    const command = new PutScalingPolicyCommand({
      PolicyName: 'mso-run-ep-async-backlog-per-instance\u0007',
      ServiceNamespace: 'sagemaker',
      ResourceId: 'endpoint/mso-run-ep-async/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
    });

    // Act
    const violations = lines(command);

    // Assert
    expect(violations).toEqual([
      'PutScalingPolicy.PolicyName: does not match the pattern ^\\p{Print}+$; given "mso-run-ep-async-backlog-per-instance\\u0007" ' +
        '(source: https://docs.aws.amazon.com/autoscaling/application/APIReference/API_PutScalingPolicy.html)',
    ]);
  });
});

import { describe, expect, it } from '@jest/globals';
import type { RecordedCall } from '../fake-aws/recorder.js';
import { DeployedPolicies } from './deployed-policies.js';
import { IamEvaluator } from './iam-evaluator.js';

const ACCOUNT = '123456789012';

/** One Lambda (`STEP_NAME` step) whose role reads models/ of a KMS-encrypted bucket and creates mso- models. */
function template(statements: unknown[]): Record<string, unknown> {
  return {
    Resources: {
      Bucket1: {
        Type: 'AWS::S3::Bucket',
        Properties: {
          BucketName: 'b',
          BucketEncryption: {
            ServerSideEncryptionConfiguration: [
              {
                ServerSideEncryptionByDefault: {
                  SSEAlgorithm: 'aws:kms',
                  KMSMasterKeyID: { 'Fn::GetAtt': ['Key1', 'Arn'] },
                },
              },
            ],
          },
        },
      },
      Key1: {
        Type: 'AWS::KMS::Key',
        Properties: {
          KeyPolicy: {
            Statement: [
              {
                Effect: 'Allow',
                Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` },
                Action: 'kms:*',
                Resource: '*',
              },
            ],
          },
        },
      },
      Machine1: { Type: 'AWS::StepFunctions::StateMachine', Properties: { StateMachineName: 'Flow' } },
      ExecutionRole1: { Type: 'AWS::IAM::Role', Properties: { RoleName: 'exec' } },
      ExecutionPolicy1: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'ExecutionRole1' }],
          PolicyDocument: {
            Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/models/*' }],
          },
        },
      },
      Role1: { Type: 'AWS::IAM::Role', Properties: {} },
      Policy1: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Roles: [{ Ref: 'Role1' }],
          PolicyDocument: { Version: '2012-10-17', Statement: statements },
        },
      },
      Fn1: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Role: { 'Fn::GetAtt': ['Role1', 'Arn'] },
          Environment: { Variables: { STEP_NAME: 'step' } },
        },
      },
    },
  };
}

const READ_MODELS = [
  { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/models/*' },
  {
    Effect: 'Allow',
    Action: 'kms:Decrypt',
    Resource: { 'Fn::GetAtt': ['Key1', 'Arn'] },
    Condition: { StringEquals: { 'kms:ViaService': 's3.us-east-1.amazonaws.com' } },
  },
];

function evaluator(statements: unknown[]): IamEvaluator {
  return new IamEvaluator(
    new DeployedPolicies({
      template: template(statements),
      env: { partition: 'aws', region: 'us-east-1', account: ACCOUNT },
      synthesizedFor: { account: '000000000000', region: 'local-1' },
    }),
    { taskTokenStateMachine: 'Machine1' },
  );
}

function call(command: string, input: Record<string, unknown>, client = 'S3Client'): RecordedCall {
  return { client, command, input, caller: 'step', adapters: [] };
}

describe('IamEvaluator', () => {
  it('allows an object read its role grants, with the bucket key’s decrypt through S3', async () => {
    // Act
    const verdict = await evaluator(READ_MODELS).evaluate([
      call('GetObjectCommand', { Bucket: 'b', Key: 'models/m.tar.gz' }),
    ]);

    // Assert
    expect(verdict).toEqual({ denied: [], known: [], unattributed: [] });
  });

  it('fails when the object is under a prefix the role does not grant, naming function, action and ARN', async () => {
    // Act
    const verdict = await evaluator(READ_MODELS).evaluate([
      call('GetObjectCommand', { Bucket: 'b', Key: 'payloads/p.json' }),
    ]);

    // Assert
    expect(verdict.denied).toEqual([
      'function step: s3:GetObject on arn:aws:s3:::b/payloads/p.json denied (implicit)',
    ]);
  });

  it('fails when the bucket key’s decrypt is not granted', async () => {
    // Act
    const verdict = await evaluator(READ_MODELS.slice(0, 1)).evaluate([
      call('GetObjectCommand', { Bucket: 'b', Key: 'models/m.tar.gz' }),
    ]);

    // Assert
    expect(verdict.denied).toEqual([
      `function step: kms:Decrypt on arn:aws:kms:us-east-1:${ACCOUNT}:key/Key1 with kms:ViaService=s3.us-east-1.amazonaws.com denied (implicit)`,
    ]);
  });

  it('reports an explicit deny as explicit', async () => {
    // Act
    const verdict = await evaluator([
      ...READ_MODELS,
      { Effect: 'Deny', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/models/secret/*' },
    ]).evaluate([call('GetObjectCommand', { Bucket: 'b', Key: 'models/secret/m.tar.gz' })]);

    // Assert
    expect(verdict.denied).toEqual([
      'function step: s3:GetObject on arn:aws:s3:::b/models/secret/m.tar.gz denied (explicit)',
    ]);
  });

  it('authorizes CreateEndpoint on the endpoint and on its config', async () => {
    // Act
    const verdict = await evaluator([
      {
        Effect: 'Allow',
        Action: 'sagemaker:CreateEndpoint',
        Resource: `arn:aws:sagemaker:us-east-1:${ACCOUNT}:endpoint/mso-*`,
      },
    ]).evaluate([
      call(
        'CreateEndpointCommand',
        { EndpointName: 'mso-E', EndpointConfigName: 'mso-C' },
        'SageMakerClient',
      ),
    ]);

    // Assert
    expect(verdict.denied).toEqual([
      `function step: sagemaker:CreateEndpoint on arn:aws:sagemaker:us-east-1:${ACCOUNT}:endpoint-config/mso-c denied (implicit)`,
    ]);
  });

  it('fails when a check that names no resource is granted on some ARNs only, not on *', async () => {
    // Prepare: Application Auto Scaling's PutMetricAlarm check names no alarm.
    const statements = [
      { Effect: 'Allow', Action: 'application-autoscaling:RegisterScalableTarget', Resource: '*' },
      {
        Effect: 'Allow',
        Action: ['cloudwatch:PutMetricAlarm', 'cloudwatch:DescribeAlarms', 'cloudwatch:DeleteAlarms'],
        Resource: `arn:aws:cloudwatch:us-east-1:${ACCOUNT}:alarm:mso-*`,
      },
      {
        Effect: 'Allow',
        Action: [
          'sagemaker:DescribeEndpoint',
          'sagemaker:DescribeEndpointConfig',
          'sagemaker:UpdateEndpointWeightsAndCapacities',
        ],
        Resource: '*',
      },
      { Effect: 'Allow', Action: 'iam:CreateServiceLinkedRole', Resource: '*' },
    ];

    // Act
    const verdict = await evaluator(statements).evaluate([
      call(
        'RegisterScalableTargetCommand',
        {
          ServiceNamespace: 'sagemaker',
          ResourceId: 'endpoint/mso-e/variant/AllTraffic',
          ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        },
        'ApplicationAutoScalingClient',
      ),
    ]);

    // Assert
    expect(verdict.denied).toEqual([
      'function step: cloudwatch:PutMetricAlarm on * denied (implicit)',
      'function step: cloudwatch:DescribeAlarms on * denied (implicit)',
      'function step: cloudwatch:DeleteAlarms on * denied (implicit)',
    ]);
  });

  it('fails when the execution role a model is created with cannot read its artifacts, naming the role', async () => {
    // Prepare
    const statements = [
      { Effect: 'Allow', Action: 'sagemaker:CreateModel', Resource: '*' },
      { Effect: 'Allow', Action: 'iam:PassRole', Resource: '*' },
    ];

    // Act
    const verdict = await evaluator(statements).evaluate([
      call(
        'CreateModelCommand',
        {
          ModelName: 'mso-m',
          ExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/exec`,
          PrimaryContainer: { Image: 'i', ModelDataUrl: 's3://b/models/m.tar.gz' },
        },
        'SageMakerClient',
      ),
    ]);

    // Assert: the role reads the object, but no grant lets it decrypt it.
    expect(verdict.denied).toEqual([
      `function step as role exec: kms:Decrypt on arn:aws:kms:us-east-1:${ACCOUNT}:key/Key1 with kms:ViaService=s3.us-east-1.amazonaws.com denied (implicit)`,
    ]);
  });

  it('sets apart a call sent outside any function', async () => {
    // Act
    const verdict = await evaluator(READ_MODELS).evaluate([
      {
        client: 'S3Client',
        command: 'GetObjectCommand',
        input: { Bucket: 'b', Key: 'models/m' },
        adapters: [],
      },
    ]);

    // Assert
    expect(verdict.unattributed).toEqual(['S3Client.GetObjectCommand']);
  });

  it('fails when a request is not in the authorization table, naming it', async () => {
    // Act
    const attempt = evaluator(READ_MODELS).evaluate([call('DeleteBucketCommand', { Bucket: 'b' })]);

    // Assert
    await expect(attempt).rejects.toThrow(
      'S3Client.DeleteBucketCommand has no entry in the IAM authorization table',
    );
  });
});

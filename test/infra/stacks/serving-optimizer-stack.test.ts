import { describe, expect, it } from '@jest/globals';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { ServingOptimizerStackProps } from '../../../infra/stacks/serving-optimizer-stack.js';
import { PROJECT_FUNCTION_NAMES, SUPPORT_FUNCTIONS } from '../../../core/contracts/functions.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { createTestApp, FIXTURE_LAMBDAS, FIXTURE_STEP, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { grantsOf, logicalIdOf } from '../policy-grants.js';
import {
  ArtifactPrefix,
  RUN_INPUT_PREFIXES,
  SAGEMAKER_READ_PREFIXES,
} from '../../../core/contracts/object-uri.js';
import { ProjectFunction } from '../../../infra/constructs/project-function.js';

function buildStack(props: ServingOptimizerStackProps = {}) {
  const app = createTestApp();
  const stack = new ServingOptimizerStack(app, 'ServingOptimizerTest', {
    env: TEST_ENV,
    lambdaEntryDirectory: FIXTURE_LAMBDAS,
    includeWorkflows: false,
    ...props,
  });
  return { stack, template: () => Template.fromStack(stack) };
}

const TLS_ONLY_STATEMENT = Match.objectLike({
  Effect: 'Deny',
  Action: 's3:*',
  Principal: { AWS: '*' },
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
});

describe('ServingOptimizerStack', () => {
  describe('artifacts bucket', () => {
    const { stack, template: synth } = buildStack();
    const template = synth();
    const bucketId = logicalIdOf(stack, stack.artifactsBucket);
    const keyId = logicalIdOf(stack, stack.encryptionKey);
    const accessLogsId = logicalIdOf(stack, stack.artifacts.accessLogsBucket);

    it('is encrypted with the rotating customer managed key and an S3 Bucket Key', () => {
      // Assert
      template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
      expect(template.toJSON().Resources[bucketId].Properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: { 'Fn::GetAtt': [keyId, 'Arn'] },
            },
          },
        ],
      });
    });

    it('denies every request that does not use TLS 1.2 or later', () => {
      // Prepare
      const bucketAndObjects = [
        { 'Fn::GetAtt': [bucketId, 'Arn'] },
        { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
      ];

      // Assert
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucketId },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
              Resource: bucketAndObjects,
            }),
            Match.objectLike({
              Effect: 'Deny',
              Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } },
              Resource: bucketAndObjects,
            }),
          ]),
        },
      });
    });

    it('blocks all public access, is versioned and owned by the bucket owner', () => {
      // Assert
      const bucket = template.toJSON().Resources[bucketId].Properties;
      expect(bucket.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(bucket.VersioningConfiguration).toEqual({ Status: 'Enabled' });
      expect(bucket.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    });

    it('expires noncurrent versions after 30 days and aborts stale multipart uploads', () => {
      // Assert
      expect(template.toJSON().Resources[bucketId].Properties.LifecycleConfiguration.Rules).toEqual([
        {
          Id: 'expire-noncurrent-versions',
          NoncurrentVersionExpiration: { NoncurrentDays: 30 },
          ExpiredObjectDeleteMarker: true,
          Status: 'Enabled',
        },
        {
          Id: 'abort-incomplete-uploads',
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
          Status: 'Enabled',
        },
      ]);
    });

    it('sends its server access logs to the access-logs bucket', () => {
      // Assert
      expect(template.toJSON().Resources[bucketId].Properties.LoggingConfiguration).toEqual({
        DestinationBucketName: { Ref: accessLogsId },
        LogFilePrefix: 'artifacts/',
      });
    });

    it('is retained with its key when the stack is deleted, and has no hard-coded name', () => {
      // Assert
      const resources = template.toJSON().Resources;
      expect(resources[bucketId].DeletionPolicy).toBe('Retain');
      expect(resources[keyId].DeletionPolicy).toBe('Retain');
      expect(resources[accessLogsId].DeletionPolicy).toBe('Retain');
      expect(resources[bucketId].Properties.BucketName).toBeUndefined();
      expect(resources[accessLogsId].Properties.BucketName).toBeUndefined();
    });

    it('has an access-logs bucket that is encrypted with SSE-S3, TLS-only and private', () => {
      // Assert
      const accessLogs = template.toJSON().Resources[accessLogsId].Properties;
      expect(accessLogs.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      });
      expect(accessLogs.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: accessLogsId },
        PolicyDocument: { Statement: Match.arrayWith([TLS_ONLY_STATEMENT]) },
      });
    });
  });

  it('applies the removal policy and noncurrent-version expiry it is given', () => {
    // Act
    const { stack, template: synth } = buildStack({
      artifacts: { removalPolicy: RemovalPolicy.DESTROY, noncurrentVersionExpiration: Duration.days(3) },
    });

    // Assert
    const resources = synth().toJSON().Resources;
    const bucket = resources[logicalIdOf(stack, stack.artifactsBucket)];
    expect(bucket.DeletionPolicy).toBe('Delete');
    expect(resources[logicalIdOf(stack, stack.encryptionKey)].DeletionPolicy).toBe('Delete');
    expect(bucket.Properties.LifecycleConfiguration.Rules[0].NoncurrentVersionExpiration).toEqual({
      NoncurrentDays: 3,
    });
  });

  describe('SageMaker execution role', () => {
    const { stack, template: synth } = buildStack();
    const template = synth();
    const roleId = logicalIdOf(stack, stack.sagemakerExecutionRole);
    const bucketArn = `<${logicalIdOf(stack, stack.artifactsBucket)}.Arn>`;
    const keyArn = `<${logicalIdOf(stack, stack.encryptionKey)}.Arn>`;

    it('is assumed by SageMaker only and has no managed policy', () => {
      // Assert
      expect(template.toJSON().Resources[roleId].Properties.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'sagemaker.amazonaws.com' } },
      ]);
      expect(template.toJSON().Resources[roleId].Properties.ManagedPolicyArns).toBeUndefined();
    });

    it('reads models/, inputs/ and runs/, writes runs/ only, and pulls images, logs and metrics for SageMaker', () => {
      // Prepare
      const viaS3 = '{"StringEquals":{"kms:ViaService":"s3.us-east-1.amazonaws.com"}}';

      // Assert
      expect(grantsOf(template, roleId)).toEqual(
        [
          `Allow s3:GetObject on ${bucketArn}/models/*`,
          `Allow s3:GetObject on ${bucketArn}/inputs/*`,
          `Allow s3:GetObject on ${bucketArn}/runs/*`,
          `Allow s3:ListBucket on ${bucketArn} if {"StringLike":{"s3:prefix":["models/*","inputs/*","runs/*"]}}`,
          `Allow s3:PutObject on ${bucketArn}/runs/*`,
          `Allow s3:AbortMultipartUpload on ${bucketArn}/runs/*`,
          `Allow kms:Decrypt on ${keyArn} if ${viaS3}`,
          `Allow kms:GenerateDataKey on ${keyArn} if ${viaS3}`,
          'Allow ecr:BatchCheckLayerAvailability on arn:aws:ecr:*:*:repository/*',
          'Allow ecr:BatchGetImage on arn:aws:ecr:*:*:repository/*',
          'Allow ecr:GetDownloadUrlForLayer on arn:aws:ecr:*:*:repository/*',
          'Allow ecr:GetAuthorizationToken on *',
          'Allow logs:CreateLogGroup on arn:aws:logs:us-east-1:123456789012:log-group:/aws/sagemaker/*',
          'Allow logs:CreateLogStream on arn:aws:logs:us-east-1:123456789012:log-group:/aws/sagemaker/*',
          'Allow logs:DescribeLogStreams on arn:aws:logs:us-east-1:123456789012:log-group:/aws/sagemaker/*',
          'Allow logs:PutLogEvents on arn:aws:logs:us-east-1:123456789012:log-group:/aws/sagemaker/*',
          'Allow cloudwatch:PutMetricData on * if {"StringLike":{"cloudwatch:namespace":"/aws/sagemaker/*"}}',
        ].sort(),
      );
    });
  });

  describe('step Lambdas', () => {
    it('get the bucket name and only the artifact grants they ask for', () => {
      // Prepare
      const { stack, template: synth } = buildStack();

      // Act
      const fn = stack.createStepLambda(FIXTURE_STEP, {
        readsArtifacts: ['models/'],
        writesArtifacts: ['runs/'],
      });

      // Assert
      const template = synth();
      const bucketId = logicalIdOf(stack, stack.artifactsBucket);
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({ STEP_NAME: FIXTURE_STEP, ARTIFACTS_BUCKET: { Ref: bucketId } }),
        },
      });
      const s3Grants = grantsOf(template, logicalIdOf(stack, fn.serviceRole)).filter((line) =>
        line.includes(' s3:'),
      );
      expect(s3Grants).toEqual(
        [
          `Allow s3:GetObject on <${bucketId}.Arn>/models/*`,
          `Allow s3:ListBucket on <${bucketId}.Arn> if {"StringLike":{"s3:prefix":["models/*"]}}`,
          `Allow s3:PutObject on <${bucketId}.Arn>/runs/*`,
          `Allow s3:AbortMultipartUpload on <${bucketId}.Arn>/runs/*`,
        ].sort(),
      );
    });

    it('get no artifact grant by default', () => {
      // Prepare
      const { stack, template: synth } = buildStack();

      // Act
      const fn = stack.createStepLambda(FIXTURE_STEP);

      // Assert
      const grants = grantsOf(synth(), logicalIdOf(stack, fn.serviceRole));
      expect(grants.filter((line) => / (s3|kms):/.test(line))).toEqual([]);
    });

    it('fails when the step has no entry file', () => {
      // Prepare
      const { stack } = buildStack();

      // Act
      const act = () => stack.createStepLambda('deploy-candidate');

      // Assert
      expect(act).toThrow(/no entry file for the step "deploy-candidate"/);
    });
  });

  describe('with the workflows', () => {
    const app = createTestApp();
    const stack = new ServingOptimizerStack(app, 'WithWorkflows', { env: TEST_ENV });
    const template = Template.fromStack(stack);
    const outputs = template.toJSON().Outputs as Record<string, unknown>;

    it('grants the run API’s plan-run Lambda the reads of the two first states’ Lambdas and none of their writes', () => {
      // Prepare
      const grantsBesideLogs = (stepName: string): string[] => {
        const fn = stack.node.children.find(
          (child): child is ProjectFunction =>
            child instanceof ProjectFunction && child.stepName === stepName,
        );
        if (fn === undefined) throw new Error(`no Lambda ${stepName}`);
        const logGroup = `<${logicalIdOf(stack, fn.functionLogGroup)}.Arn>`;
        return grantsOf(template, logicalIdOf(stack, fn.serviceRole)).filter(
          (line) => !line.includes(logGroup),
        );
      };
      const writes = / (s3:PutObject|s3:DeleteObject|s3:Abort\w*|kms:GenerateDataKey|kms:Encrypt) /;

      // Act
      const planGrants = grantsBesideLogs(SUPPORT_FUNCTIONS.planRun);

      // Assert
      const stateReads = [
        ...grantsBesideLogs('validate-and-plan'),
        ...grantsBesideLogs('validate-async-run'),
      ].filter((line) => !writes.test(line));
      // The listing grant is one statement per role: the plan's covers the prefixes of both.
      const listing = (line: string) => line.includes(' s3:ListBucket ');
      const bucket = `<${logicalIdOf(stack, stack.artifactsBucket)}.Arn>`;
      expect(planGrants.filter((line) => !listing(line))).toEqual(
        [...new Set(stateReads.filter((line) => !listing(line)))].sort(),
      );
      expect(planGrants.filter(listing)).toEqual([
        `Allow s3:ListBucket on ${bucket} if {"StringLike":{"s3:prefix":["models/*","runs/*","catalog/prices/*","inputs/*"]}}`,
      ]);
    });

    it('lets "Recommend" alone read and write the Model Registry baseline index, besides its run reports', () => {
      // Prepare
      const functions = stack.node.children.filter(
        (child): child is ProjectFunction => child instanceof ProjectFunction,
      );
      const bucket = `<${logicalIdOf(stack, stack.artifactsBucket)}.Arn>`;
      const s3GrantsOf = (fn: ProjectFunction): string[] =>
        grantsOf(template, logicalIdOf(stack, fn.serviceRole)).filter((line) => line.includes(' s3:'));

      // Act
      const withIndex = functions
        .filter((fn) => s3GrantsOf(fn).some((line) => line.includes('model-packages/')))
        .map((fn) => fn.stepName);
      const recommend = functions.find((fn) => fn.stepName === 'recommend');

      // Assert
      expect(withIndex).toEqual(['recommend']);
      if (recommend === undefined) throw new Error('no Lambda recommend');
      expect(s3GrantsOf(recommend)).toEqual(
        [
          `Allow s3:GetObject on ${bucket}/runs/*`,
          `Allow s3:GetObject on ${bucket}/model-packages/*`,
          `Allow s3:ListBucket on ${bucket} if {"StringLike":{"s3:prefix":["runs/*","model-packages/*"]}}`,
          `Allow s3:PutObject on ${bucket}/runs/*`,
          `Allow s3:PutObject on ${bucket}/model-packages/*`,
          `Allow s3:AbortMultipartUpload on ${bucket}/runs/*`,
          `Allow s3:AbortMultipartUpload on ${bucket}/model-packages/*`,
        ].sort(),
      );
    });

    it('grants "Record proof" GetMetricData, and reads and writes under runs/ only (least privilege)', () => {
      // Prepare
      const fn = stack.node.children.find(
        (child): child is ProjectFunction =>
          child instanceof ProjectFunction && child.stepName === 'record-proof',
      );
      if (fn === undefined) throw new Error('no Lambda record-proof');
      const logGroup = `<${logicalIdOf(stack, fn.functionLogGroup)}.Arn>`;

      // Act
      const grants = grantsOf(template, logicalIdOf(stack, fn.serviceRole)).filter(
        (line) => !line.includes(logGroup),
      );

      // Assert
      const bucket = `<${logicalIdOf(stack, stack.artifactsBucket)}.Arn>`;
      const key =
        '<ArtifactsKeyA4B22E2B.Arn> if {"StringEquals":{"kms:ViaService":"s3.us-east-1.amazonaws.com"}}';
      expect(grants).toEqual([
        'Allow cloudwatch:GetMetricData on *',
        `Allow kms:Decrypt on ${key}`,
        `Allow kms:GenerateDataKey on ${key}`,
        `Allow s3:AbortMultipartUpload on ${bucket}/runs/*`,
        `Allow s3:GetObject on ${bucket}/runs/*`,
        `Allow s3:ListBucket on ${bucket} if {"StringLike":{"s3:prefix":["runs/*"]}}`,
        `Allow s3:PutObject on ${bucket}/runs/*`,
        'Allow xray:PutTelemetryRecords on *',
        'Allow xray:PutTraceSegments on *',
      ]);
    });

    /** A step Lambda's grants, one line per action and resource, without its own log group's. */
    const stepGrants = (stepName: string): string[] => {
      const fn = stack.node.children.find(
        (child): child is ProjectFunction => child instanceof ProjectFunction && child.stepName === stepName,
      );
      if (fn === undefined) throw new Error(`no Lambda ${stepName}`);
      const logGroup = `<${logicalIdOf(stack, fn.functionLogGroup)}.Arn>`;
      return grantsOf(template, logicalIdOf(stack, fn.serviceRole)).filter(
        (line) => !line.includes(logGroup),
      );
    };
    const SCALABLE_TARGETS = 'arn:aws:application-autoscaling:us-east-1:123456789012:scalable-target/*';
    const OWNED_ALARMS = [
      'arn:aws:cloudwatch:us-east-1:123456789012:alarm:TargetTracking-endpoint/mso-*',
      'arn:aws:cloudwatch:us-east-1:123456789012:alarm:mso-*',
    ];

    it('grants "ramp-scaling" the scaling calls on the account’s scalable targets, the permission checks, the service-linked role and the owned alarms', () => {
      // Act
      const grants = stepGrants('ramp-scaling');

      // Assert
      const serviceLinkedRole =
        'arn:aws:iam::123456789012:role/aws-service-role/sagemaker.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint' +
        ' if {"StringLike":{"iam:AWSServiceName":"sagemaker.application-autoscaling.amazonaws.com"}}';
      expect(grants).toEqual([
        `Allow application-autoscaling:DeregisterScalableTarget on ${SCALABLE_TARGETS}`,
        `Allow application-autoscaling:PutScalingPolicy on ${SCALABLE_TARGETS}`,
        `Allow application-autoscaling:RegisterScalableTarget on ${SCALABLE_TARGETS}`,
        'Allow cloudwatch:DeleteAlarms on *',
        ...OWNED_ALARMS.map((alarm) => `Allow cloudwatch:DeleteAlarms on ${alarm}`),
        'Allow cloudwatch:DescribeAlarms on *',
        ...OWNED_ALARMS.map((alarm) => `Allow cloudwatch:DescribeAlarms on ${alarm}`),
        'Allow cloudwatch:PutMetricAlarm on *',
        `Allow iam:CreateServiceLinkedRole on ${serviceLinkedRole}`,
        'Allow sagemaker:DescribeEndpoint on *',
        'Allow sagemaker:DescribeEndpointConfig on *',
        'Allow sagemaker:UpdateEndpointWeightsAndCapacities on *',
        'Allow xray:PutTelemetryRecords on *',
        'Allow xray:PutTraceSegments on *',
      ]);
    });

    it('grants "record-ramp" DescribeScalingActivities alone, and reads and writes under runs/ only', () => {
      // Act
      const grants = stepGrants('record-ramp');

      // Assert
      const bucket = `<${logicalIdOf(stack, stack.artifactsBucket)}.Arn>`;
      const key =
        '<ArtifactsKeyA4B22E2B.Arn> if {"StringEquals":{"kms:ViaService":"s3.us-east-1.amazonaws.com"}}';
      expect(grants).toEqual([
        'Allow application-autoscaling:DescribeScalingActivities on *',
        `Allow kms:Decrypt on ${key}`,
        `Allow kms:GenerateDataKey on ${key}`,
        `Allow s3:AbortMultipartUpload on ${bucket}/runs/*`,
        `Allow s3:GetObject on ${bucket}/runs/*`,
        `Allow s3:ListBucket on ${bucket} if {"StringLike":{"s3:prefix":["runs/*"]}}`,
        `Allow s3:PutObject on ${bucket}/runs/*`,
        'Allow xray:PutTelemetryRecords on *',
        'Allow xray:PutTraceSegments on *',
      ]);
    });

    const JOBS = 'arn:aws:sagemaker:us-east-1:123456789012';
    const sagemakerRoleArn = () => `<${logicalIdOf(stack, stack.sagemakerExecutionRole)}.Arn>`;

    it('grants "start-compilation" the creates of Neo and optimization jobs on the owned job ARNs, and PassRole to SageMaker only', () => {
      // Act
      const grants = stepGrants('start-compilation');

      // Assert
      expect(grants).toEqual([
        `Allow iam:PassRole on ${sagemakerRoleArn()} if {"StringEquals":{"iam:PassedToService":"sagemaker.amazonaws.com"}}`,
        `Allow sagemaker:AddTags on ${JOBS}:compilation-job/mso-*`,
        `Allow sagemaker:AddTags on ${JOBS}:optimization-job/mso-*`,
        `Allow sagemaker:CreateCompilationJob on ${JOBS}:compilation-job/mso-*`,
        `Allow sagemaker:CreateOptimizationJob on ${JOBS}:optimization-job/mso-*`,
        'Allow xray:PutTelemetryRecords on *',
        'Allow xray:PutTraceSegments on *',
      ]);
    });

    it('grants the readers of a run’s input exactly the prefixes its validation accepts', () => {
      // Prepare
      const bucket = `<${logicalIdOf(stack, stack.artifactsBucket)}.Arn>`;
      const reads = (grants: string[]): string[] =>
        grants.filter((line) => line.startsWith('Allow s3:GetObject on ')).sort();
      const expected = (prefixes: readonly string[]): string[] =>
        prefixes.map((prefix) => `Allow s3:GetObject on ${bucket}/${prefix}*`).sort();

      // Act
      const optimizationReaders = [
        'validate-and-plan',
        'package-model',
        'run-load-worker',
        'quality-pass',
      ].map((name) => reads(stepGrants(name)));
      const asyncPlanning = reads(stepGrants('validate-async-run'));
      const sagemaker = reads(grantsOf(template, logicalIdOf(stack, stack.sagemakerExecutionRole)));

      // Assert: the first state also reads the day's copy of the region's prices.
      const [firstState, ...others] = optimizationReaders;
      expect(firstState).toEqual(expected([...RUN_INPUT_PREFIXES.optimization, ArtifactPrefix.prices]));
      for (const grants of others) expect(grants).toEqual(expected(RUN_INPUT_PREFIXES.optimization));
      expect(asyncPlanning).toEqual(expected(RUN_INPUT_PREFIXES.async));
      expect(sagemaker).toEqual(expected(SAGEMAKER_READ_PREFIXES));
    });

    it('grants the load worker both invoke actions, so streamed load tests are not denied', () => {
      // Act
      const invokes = stepGrants('run-load-worker').filter((line) => line.includes('sagemaker:Invoke'));

      // Assert
      expect(invokes).toEqual([
        `Allow sagemaker:InvokeEndpoint on ${JOBS}:endpoint/*`,
        `Allow sagemaker:InvokeEndpointWithResponseStream on ${JOBS}:endpoint/*`,
      ]);
    });

    it('grants the quality pass buffered InvokeEndpoint on the run’s own endpoints only, and no Lambda invoke', () => {
      // Act
      const grants = stepGrants('quality-pass');

      // Assert: the guard refuses existingEndpoint, so only endpoints the project creates (mso-*).
      expect(grants.filter((line) => line.includes('sagemaker:'))).toEqual([
        `Allow sagemaker:InvokeEndpoint on ${JOBS}:endpoint/mso-*`,
      ]);
      expect(grants.filter((line) => line.includes('lambda:'))).toEqual([]);
      expect(grants.filter((line) => line.startsWith('Allow s3:PutObject on '))).toEqual([
        expect.stringMatching(/\/runs\/\*$/),
      ]);
    });

    it('grants "check-compilation" describing and stopping the owned Neo and optimization jobs only', () => {
      // Act
      const grants = stepGrants('check-compilation');

      // Assert
      expect(grants).toEqual([
        `Allow sagemaker:DescribeCompilationJob on ${JOBS}:compilation-job/mso-*`,
        `Allow sagemaker:DescribeOptimizationJob on ${JOBS}:optimization-job/mso-*`,
        `Allow sagemaker:StopCompilationJob on ${JOBS}:compilation-job/mso-*`,
        `Allow sagemaker:StopOptimizationJob on ${JOBS}:optimization-job/mso-*`,
        'Allow xray:PutTelemetryRecords on *',
        'Allow xray:PutTraceSegments on *',
      ]);
    });

    it('lets "clean-up" list the optimization jobs and stop the owned ones still running', () => {
      // Act
      const grants = stepGrants('clean-up').filter((line) => line.includes('OptimizationJob'));

      // Assert
      expect(grants).toEqual([
        `Allow sagemaker:DescribeOptimizationJob on ${JOBS}:optimization-job/mso-*`,
        'Allow sagemaker:ListOptimizationJobs on *',
        `Allow sagemaker:StopOptimizationJob on ${JOBS}:optimization-job/mso-*`,
      ]);
    });

    it('lets "clean-up" deregister a ramp endpoint’s scaling left registered, and delete the owned alarms only', () => {
      // Act
      const scaling = stepGrants('clean-up').filter(
        (line) => line.includes(' application-autoscaling:') || line.includes(' cloudwatch:'),
      );

      // Assert
      expect(scaling).toEqual([
        `Allow application-autoscaling:DeregisterScalableTarget on ${SCALABLE_TARGETS}`,
        ...OWNED_ALARMS.map((alarm) => `Allow cloudwatch:DeleteAlarms on ${alarm}`),
        ...OWNED_ALARMS.map((alarm) => `Allow cloudwatch:DescribeAlarms on ${alarm}`),
      ]);
    });

    it('lets each service invoke a Lambda only from its source, and from this account where the service sends it', () => {
      // Prepare
      const permissions = Object.values(
        template.findResources('AWS::Lambda::Permission') as Record<
          string,
          { Properties: { Principal: unknown; SourceArn?: unknown; SourceAccount?: unknown } }
        >,
      ).filter(
        ({ Properties }) =>
          typeof Properties.Principal === 'string' && Properties.Principal.endsWith('.amazonaws.com'),
      );

      // Act
      const scopes = permissions
        .map(
          ({ Properties }) =>
            `${String(Properties.Principal)} SourceArn:${Properties.SourceArn === undefined ? 'none' : 'set'} ` +
            `SourceAccount:${JSON.stringify(Properties.SourceAccount ?? 'none')}`,
        )
        .sort();

      // Assert: SNS topic ARNs name their account, and SNS is not documented to send aws:SourceAccount.
      // EventBridge invokes one Lambda (the approval trigger); the failed-run rule starts a state machine.
      // API Gateway invokes the run API's Lambdas: seven routes (plan among them) for each of the two workflows.
      expect(scopes).toEqual([
        ...Array.from(
          { length: 14 },
          () => 'apigateway.amazonaws.com SourceArn:set SourceAccount:"123456789012"',
        ),
        'events.amazonaws.com SourceArn:set SourceAccount:"123456789012"',
        'sns.amazonaws.com SourceArn:set SourceAccount:"none"',
        'sns.amazonaws.com SourceArn:set SourceAccount:"none"',
      ]);
    });

    it('outputs the async state machine and the two topics a reused async endpoint must notify', () => {
      // Prepare
      const { asyncInference } = stack;
      if (asyncInference === undefined) throw new Error('expected the async-inference workflow');

      // Assert
      expect(outputs).toMatchObject({
        AsyncInferenceStateMachineArn: {
          Description: 'Start an async run with examples/async-batch.json (the execution name is the run id)',
          Value: { Ref: logicalIdOf(stack, asyncInference.workflow.stateMachine) },
        },
        AsyncSuccessTopicArn: {
          Description: 'SuccessTopic of a reused async endpoint’s NotificationConfig must be this topic',
          Value: { Ref: logicalIdOf(stack, asyncInference.successTopic) },
        },
        AsyncErrorTopicArn: {
          Description: 'ErrorTopic of a reused async endpoint’s NotificationConfig must be this topic',
          Value: { Ref: logicalIdOf(stack, asyncInference.errorTopic) },
        },
        AsyncTopicsKeyArn: {
          Description:
            'A reused async endpoint’s role needs kms:GenerateDataKey and kms:Decrypt on this key, via SNS',
          Value: { 'Fn::GetAtt': [logicalIdOf(stack, stack.encryptionKey), 'Arn'] },
        },
      });
    });

    it('creates one Lambda per registered function, each carrying its name in STEP_NAME', () => {
      // Prepare
      const functions = Object.values(
        template.findResources('AWS::Lambda::Function') as Record<
          string,
          { Properties: { Environment?: { Variables?: Record<string, unknown> } } }
        >,
      );
      // The approval trigger's Lambda exists only with `modelApproval` (not set here).
      const expected = PROJECT_FUNCTION_NAMES.filter(
        (name) => name !== SUPPORT_FUNCTIONS.startApprovedModelRun,
      );

      // Act
      const stepNames = functions.map(({ Properties }) =>
        String(Properties.Environment?.Variables?.STEP_NAME),
      );

      // Assert
      expect(stepNames.sort()).toEqual([...expected].sort());
    });

    it('names every state machine’s log group under /aws/vendedlogs/states/ after its stack, so the account’s Logs resource policy does not grow', () => {
      // Prepare
      const other = new ServingOptimizerStack(createTestApp(), 'OtherStack', { env: TEST_ENV });
      const logGroupNames = (synthesized: Template): unknown[] => {
        const groups = synthesized.toJSON().Resources as Record<
          string,
          { Properties: Record<string, unknown> }
        >;
        const machines = Object.values(synthesized.findResources('AWS::StepFunctions::StateMachine')) as {
          Properties: {
            LoggingConfiguration: {
              Destinations: { CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [string, string] } } }[];
            };
          };
        }[];
        return machines.flatMap(({ Properties }) =>
          Properties.LoggingConfiguration.Destinations.map(
            (destination) =>
              groups[destination.CloudWatchLogsLogGroup.LogGroupArn['Fn::GetAtt'][0]]?.Properties
                .LogGroupName,
          ),
        );
      };
      const stackUuidHead = {
        'Fn::Select': [
          0,
          { 'Fn::Split': ['-', { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] }] },
        ],
      };
      const named = (stackName: string, path: string) => ({
        'Fn::Join': ['', [`/aws/vendedlogs/states/${stackName}-${path}-`, stackUuidHead]],
      });

      // Act
      const names = logGroupNames(template);
      const otherNames = logGroupNames(Template.fromStack(other));

      // Assert
      expect(names.sort()).toEqual(
        [
          named('WithWorkflows', 'Optimization'),
          named('WithWorkflows', 'AsyncInference-Workflow'),
          named('WithWorkflows', 'SafetyNet-FailedRunCleanUp'),
        ].sort(),
      );
      expect(otherNames).toContainEqual(named('OtherStack', 'Optimization'));
    });

    it('still outputs the optimization state machine', () => {
      // Prepare
      const { optimization } = stack;
      if (optimization === undefined) throw new Error('expected the optimization workflow');

      // Assert
      expect(outputs).toMatchObject({
        OptimizationStateMachineArn: { Value: { Ref: logicalIdOf(stack, optimization.stateMachine) } },
      });
    });
  });

  it('leaves the async-inference workflow, its topics and its table out with the workflows', () => {
    // Act
    const { stack, template: synth } = buildStack();

    // Assert
    const template = synth();
    expect(stack.asyncInference).toBeUndefined();
    template.resourceCountIs('AWS::DynamoDB::Table', 0);
    expect(Object.keys(template.toJSON().Outputs).filter((name) => name.startsWith('Async'))).toEqual([]);
  });

  it('has no unacknowledged AwsSolutions findings, step Lambdas with artifact grants included', () => {
    // Prepare
    const { stack } = buildStack();
    stack.createStepLambda(FIXTURE_STEP, {
      readsArtifacts: ['models/', 'runs/'],
      writesArtifacts: ['runs/'],
    });

    // Assert
    expectNoUnacknowledgedNagFindings(stack);
  });
});

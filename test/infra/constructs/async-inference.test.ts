import { describe, expect, it } from '@jest/globals';
import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { ProjectFunction } from '../../../infra/constructs/project-function.js';
import {
  type AsyncInference,
  type AsyncInferenceSettings,
  resolveHeartbeatInterval,
} from '../../../infra/constructs/async-inference.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { extractStateMachines } from '../../../local/runner/index.js';
import { createTestApp, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { grantsOf, logicalIdOf, propertiesOf, SCHEDULER_TRUST_POLICY } from '../policy-grants.js';

const STACK_NAME = 'AsyncInferenceTest';
const ASYNC_STATE_MACHINE_ARN = `arn:aws:states:us-east-1:123456789012:stateMachine:${STACK_NAME}-AsyncInference`;
const OWNED = (kind: string) => `arn:aws:sagemaker:us-east-1:123456789012:${kind}/mso-*`;
const ANY_ENDPOINT = (kind: string) => `arn:aws:sagemaker:us-east-1:123456789012:${kind}/*`;
const SCALABLE_TARGETS = 'arn:aws:application-autoscaling:us-east-1:123456789012:scalable-target/*';
const PROJECT_ALARMS = [
  'arn:aws:cloudwatch:us-east-1:123456789012:alarm:mso-*',
  'arn:aws:cloudwatch:us-east-1:123456789012:alarm:TargetTracking-endpoint/mso-*',
];
const VIA = (service: string) =>
  ` if {"StringEquals":{"kms:ViaService":"${service}.us-east-1.amazonaws.com"}}`;
const SEND_TASK_ACTIONS = ['SendTaskFailure', 'SendTaskHeartbeat', 'SendTaskSuccess'];

/** The whole stack (the async construct needs the stack's Lambda factory and role), synthesized once. */
function buildStack(settings?: AsyncInferenceSettings) {
  const app = createTestApp();
  const stack = new ServingOptimizerStack(app, STACK_NAME, {
    env: TEST_ENV,
    ...(settings === undefined ? {} : { asyncInference: settings }),
  });
  const asyncInference = stack.asyncInference;
  if (asyncInference === undefined) {
    throw new Error('expected the async-inference workflow in a stack with includeWorkflows left on');
  }
  return { stack, asyncInference, template: Template.fromStack(stack) };
}

function stepNamed(asyncInference: AsyncInference, id: string): ProjectFunction {
  const step = asyncInference.steps.find((fn) => fn.node.id === id);
  if (step === undefined) throw new Error(`No async step Lambda with the construct id ${id}`);
  return step;
}

/** Every role whose policies grant an action that `matches`, as logical ids. */
function rolesGranting(template: Template, matches: (action: string) => boolean): string[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
    Properties: {
      Roles: { Ref: string }[];
      PolicyDocument: { Statement: { Action: string | string[] }[] };
    };
  }[];
  const roles = policies
    .filter((policy) =>
      policy.Properties.PolicyDocument.Statement.some((statement) =>
        [statement.Action].flat().some((action) => matches(action)),
      ),
    )
    .flatMap((policy) => policy.Properties.Roles.map((role) => role.Ref));
  return [...new Set(roles)].sort();
}

describe('AsyncInference', () => {
  describe('in the ServingOptimizer stack, with the default settings', () => {
    const { stack, asyncInference, template } = buildStack();
    const keyArnRef = { 'Fn::GetAtt': [logicalIdOf(stack, stack.encryptionKey), 'Arn'] };
    const keyArn = `<${logicalIdOf(stack, stack.encryptionKey)}.Arn>`;
    const successTopicId = logicalIdOf(stack, asyncInference.successTopic);
    const errorTopicId = logicalIdOf(stack, asyncInference.errorTopic);
    const tableId = logicalIdOf(stack, asyncInference.tokenTable);
    const queueId = logicalIdOf(stack, asyncInference.deadLetterQueue);
    const bucketId = logicalIdOf(stack, stack.artifactsBucket);
    const notificationId = logicalIdOf(stack, asyncInference.notificationHandler);
    const heartbeatId = logicalIdOf(stack, asyncInference.heartbeatSender);
    const invoke = stepNamed(asyncInference, 'InvokeAsyncInference');

    /** A step's grants beyond its own logs and X-Ray, which every project Lambda has. */
    function stepGrants(fn: ProjectFunction): string[] {
      return grantsOf(template, logicalIdOf(stack, fn.serviceRole)).filter(
        (line) =>
          !/^Allow (logs:CreateLogStream|logs:PutLogEvents|xray:PutTelemetryRecords|xray:PutTraceSegments) /.test(
            line,
          ),
      );
    }

    /**
     * What a Lambda that handles task tokens gets: `itemActions` on the token table, the table key
     * through DynamoDB, and SendTask* on the async state machine.
     */
    function tokenHolderGrants(itemActions: string[]): string[] {
      return [
        ...itemActions.map((action) => `Allow dynamodb:${action} on <${tableId}.Arn>`),
        ...['Decrypt', 'DescribeKey', 'Encrypt', 'GenerateDataKey*', 'ReEncrypt*'].map(
          (action) => `Allow kms:${action} on ${keyArn}${VIA('dynamodb')}`,
        ),
        ...SEND_TASK_ACTIONS.map((action) => `Allow states:${action} on ${ASYNC_STATE_MACHINE_ARN}`),
      ];
    }

    it('encrypts both notification topics with the artifacts key', () => {
      // Act
      const topics = [successTopicId, errorTopicId].map((id) => propertiesOf(template, id));

      // Assert
      expect(topics).toEqual([
        { DisplayName: 'SageMaker async inference results', KmsMasterKeyId: keyArnRef },
        { DisplayName: 'SageMaker async inference failures', KmsMasterKeyId: keyArnRef },
      ]);
    });

    const topics: ('successTopic' | 'errorTopic')[] = ['successTopic', 'errorTopic'];
    it.each(topics)('denies every publication to the %s that does not use TLS', (property) => {
      // Prepare
      const topicId = logicalIdOf(stack, asyncInference[property]);

      // Act
      const policies = Object.values(
        template.findResources('AWS::SNS::TopicPolicy', { Properties: { Topics: [{ Ref: topicId }] } }),
      ) as { Properties: { PolicyDocument: { Statement: unknown[] } } }[];

      // Assert
      expect(policies.map((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
        [
          {
            Sid: 'AllowPublishThroughSSLOnly',
            Effect: 'Deny',
            Action: 'sns:Publish',
            Principal: '*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: { Ref: topicId },
          },
        ],
      ]);
    });

    it('lets the SageMaker execution role publish to both topics and use their key only through SNS', () => {
      // Act
      const grants = grantsOf(template, logicalIdOf(stack, stack.sagemakerExecutionRole)).filter((line) =>
        line.includes('sns'),
      );

      // Assert
      expect(grants).toEqual(
        [
          `Allow sns:Publish on <${successTopicId}>`,
          `Allow sns:Publish on <${errorTopicId}>`,
          `Allow kms:Decrypt on ${keyArn}${VIA('sns')}`,
          `Allow kms:GenerateDataKey* on ${keyArn}${VIA('sns')}`,
        ].sort(),
      );
    });

    it('subscribes the notification Lambda to both topics, each allowed to invoke it', () => {
      // Prepare
      const handlerArn = { 'Fn::GetAtt': [notificationId, 'Arn'] };

      // Act
      const subscriptions = Object.values(
        template.findResources('AWS::SNS::Subscription', { Properties: { Endpoint: handlerArn } }),
      ).map((subscription) => (subscription as { Properties: Record<string, unknown> }).Properties);
      const invokers = Object.values(
        template.findResources('AWS::Lambda::Permission', { Properties: { FunctionName: handlerArn } }),
      ).map((permission) => (permission as { Properties: Record<string, unknown> }).Properties);

      // Assert
      expect(subscriptions).toEqual(
        expect.arrayContaining([
          { Protocol: 'lambda', Endpoint: handlerArn, TopicArn: { Ref: successTopicId } },
          { Protocol: 'lambda', Endpoint: handlerArn, TopicArn: { Ref: errorTopicId } },
        ]),
      );
      expect(subscriptions).toHaveLength(2);
      expect(invokers).toEqual(
        expect.arrayContaining(
          [successTopicId, errorTopicId].map((topicId) => ({
            Action: 'lambda:InvokeFunction',
            FunctionName: handlerArn,
            Principal: 'sns.amazonaws.com',
            SourceArn: { Ref: topicId },
          })),
        ),
      );
      expect(invokers).toHaveLength(2);
    });

    it('retries a failed notification twice, then parks it in the dead-letter queue', () => {
      // Act
      const invokeConfigs = Object.values(
        template.findResources('AWS::Lambda::EventInvokeConfig', {
          Properties: { FunctionName: { Ref: notificationId } },
        }),
      ).map((config) => (config as { Properties: Record<string, unknown> }).Properties);

      // Assert
      expect(invokeConfigs).toEqual([
        {
          FunctionName: { Ref: notificationId },
          Qualifier: '$LATEST',
          MaximumRetryAttempts: 2,
          MaximumEventAgeInSeconds: 6 * 3600,
          DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
        },
      ]);
    });

    it('keeps the parked notifications in an SSE-encrypted, TLS-only queue for 14 days', () => {
      // Act
      const queue = propertiesOf(template, queueId);
      const queuePolicies = Object.values(
        template.findResources('AWS::SQS::QueuePolicy', { Properties: { Queues: [{ Ref: queueId }] } }),
      ) as { Properties: { PolicyDocument: { Statement: unknown[] } } }[];

      // Assert
      expect(queue).toEqual({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
      expect(queuePolicies.map((policy) => policy.Properties.PolicyDocument.Statement)).toEqual([
        [
          {
            Effect: 'Deny',
            Action: 'sqs:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
          },
        ],
      ]);
    });

    it('keeps task tokens in a table keyed by inferenceId, with the expiresAt TTL, PITR and the artifacts key', () => {
      // Act
      const table = propertiesOf(template, tableId);

      // Assert
      expect(table).toEqual({
        KeySchema: [{ AttributeName: 'inferenceId', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'inferenceId', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: keyArnRef },
      });
    });

    it('gives token-table access and SendTask* to the notification, invoke and heartbeat Lambdas only', () => {
      // Act
      const tableUsers = rolesGranting(template, (action) => action.startsWith('dynamodb:'));
      const taskResumers = rolesGranting(template, (action) => action.startsWith('states:SendTask'));

      // Assert
      const expected = [asyncInference.notificationHandler, invoke, asyncInference.heartbeatSender]
        .map((fn) => logicalIdOf(stack, fn.serviceRole))
        .sort();
      expect(tableUsers).toEqual(expected);
      expect(taskResumers).toEqual(expected);
    });

    it('names the state machine as the SendTask* grants expect', () => {
      // Act
      const stateMachine = propertiesOf(template, logicalIdOf(stack, asyncInference.workflow.stateMachine));

      // Assert
      expect(stateMachine.StateMachineName).toBe(`${STACK_NAME}-AsyncInference`);
    });

    it('lets the notification Lambda read a token and consume it, and resume tasks of the async state machine', () => {
      // Act
      const grants = stepGrants(asyncInference.notificationHandler);

      // Assert
      expect(grants).toEqual(
        [
          ...tokenHolderGrants(['GetItem', 'UpdateItem']),
          ...['GetQueueAttributes', 'GetQueueUrl', 'SendMessage'].map(
            (action) => `Allow sqs:${action} on <${queueId}.Arn>`,
          ),
          // Failure reasons too long for the workflow's state, kept whole under runs/.
          ...['AbortMultipartUpload', 'PutObject'].map(
            (action) => `Allow s3:${action} on <${bucketId}.Arn>/runs/*`,
          ),
          `Allow kms:Decrypt on ${keyArn}${VIA('s3')}`,
          `Allow kms:GenerateDataKey on ${keyArn}${VIA('s3')}`,
        ].sort(),
      );
    });

    it("lets the validate step read a reused endpoint's model and simulate any role's policies", () => {
      // Act
      const grants = stepGrants(stepNamed(asyncInference, 'ValidateAsyncRun'));

      // Assert
      expect(grants).toEqual(
        expect.arrayContaining([
          `Allow sagemaker:DescribeModel on ${ANY_ENDPOINT('model')}`,
          'Allow iam:SimulatePrincipalPolicy on arn:aws:iam::123456789012:role/*',
        ]),
      );
    });

    it('lets the invoke Lambda store, read, update (the receipt) and delete tokens, invoke any endpoint asynchronously and fail its task', () => {
      // Act
      const grants = stepGrants(invoke);

      // Assert
      expect(grants).toEqual(
        [
          ...tokenHolderGrants(['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem']),
          `Allow sagemaker:InvokeEndpointAsync on ${ANY_ENDPOINT('endpoint')}`,
        ].sort(),
      );
    });

    it('lets the heartbeat sender scan and consume tokens, describe any endpoint, heartbeat tasks and read run outputs', () => {
      // Act
      const grants = stepGrants(asyncInference.heartbeatSender);

      // Assert
      expect(grants).toEqual(
        [
          ...tokenHolderGrants(['Scan', 'UpdateItem']),
          // HeadObject on the outputs of late tasks (a lost notification), under runs/ only.
          `Allow kms:Decrypt on ${keyArn}${VIA('s3')}`,
          `Allow s3:GetObject on <${bucketId}.Arn>/runs/*`,
          `Allow s3:ListBucket on <${bucketId}.Arn> if {"StringLike":{"s3:prefix":["runs/*"]}}`,
          ...['DescribeEndpoint', 'DescribeEndpointConfig'].flatMap((action) =>
            ['endpoint', 'endpoint-config'].map(
              (kind) => `Allow sagemaker:${action} on ${ANY_ENDPOINT(kind)}`,
            ),
          ),
        ].sort(),
      );
    });

    it('runs the heartbeat sender every 5 minutes with input {}, no retry and no flexible window', () => {
      // Act
      const schedule = propertiesOf(template, logicalIdOf(stack, asyncInference.heartbeatSchedule));

      // Assert
      expect(schedule).toEqual({
        Description: 'Heartbeats of the async workflow’s waiting tasks',
        ScheduleExpression: 'rate(5 minutes)',
        ScheduleExpressionTimezone: 'Etc/UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        State: 'ENABLED',
        Target: {
          Arn: { 'Fn::GetAtt': [heartbeatId, 'Arn'] },
          RoleArn: expect.objectContaining({ 'Fn::GetAtt': [expect.any(String), 'Arn'] }),
          Input: '{}',
          RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 },
        },
      });
    });

    it('gives the heartbeat schedule a role that only Scheduler’s default group assumes and that only invokes the sender', () => {
      // Prepare
      const schedule = propertiesOf(template, logicalIdOf(stack, asyncInference.heartbeatSchedule));
      const roleId = (schedule.Target as { RoleArn: { 'Fn::GetAtt': [string, string] } }).RoleArn[
        'Fn::GetAtt'
      ][0];

      // Act
      const trust = propertiesOf(template, roleId).AssumeRolePolicyDocument;
      const grants = grantsOf(template, roleId);

      // Assert
      expect(trust).toEqual(SCHEDULER_TRUST_POLICY);
      expect(grants).toEqual([
        `Allow lambda:InvokeFunction on <${heartbeatId}.Arn>`,
        `Allow lambda:InvokeFunction on <${heartbeatId}.Arn>:*`,
      ]);
    });

    it('lets the deploy step create models, endpoint configs and endpoints named mso-* and pass only the SageMaker role', () => {
      // Act
      const grants = stepGrants(stepNamed(asyncInference, 'DeployAsyncEndpoint'));

      // Assert
      expect(grants).toEqual(
        [
          ...['AddTags', 'CreateEndpoint', 'CreateEndpointConfig', 'CreateModel'].flatMap((action) =>
            ['endpoint', 'endpoint-config', 'model'].map(
              (kind) => `Allow sagemaker:${action} on ${OWNED(kind)}`,
            ),
          ),
          `Allow iam:PassRole on <${logicalIdOf(stack, stack.sagemakerExecutionRole)}.Arn>`,
        ].sort(),
      );
    });

    it('lets the check step register autoscaling of mso-* endpoints, pass Application Auto Scaling’s permission checks and create the service-linked role only', () => {
      // Act
      const grants = stepGrants(stepNamed(asyncInference, 'CheckAsyncEndpoint'));

      // Assert
      expect(grants).toEqual(
        [
          ...['RegisterScalableTarget', 'PutScalingPolicy'].map(
            (action) => `Allow application-autoscaling:${action} on ${SCALABLE_TARGETS}`,
          ),
          ...['DescribeEndpoint', 'DescribeEndpointConfig'].flatMap((action) =>
            ['endpoint', 'endpoint-config'].map(
              (kind) => `Allow sagemaker:${action} on ${ANY_ENDPOINT(kind)}`,
            ),
          ),
          ...[
            'cloudwatch:PutMetricAlarm',
            'cloudwatch:DescribeAlarms',
            'cloudwatch:DeleteAlarms',
            'sagemaker:DescribeEndpoint',
            'sagemaker:DescribeEndpointConfig',
            'sagemaker:UpdateEndpointWeightsAndCapacities',
          ].map((action) => `Allow ${action} on *`),
          'Allow iam:CreateServiceLinkedRole on arn:aws:iam::123456789012:role/aws-service-role/' +
            'sagemaker.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint' +
            ' if {"StringLike":{"iam:AWSServiceName":"sagemaker.application-autoscaling.amazonaws.com"}}',
        ].sort(),
      );
    });

    it('lets the check step call the CloudWatch actions Application Auto Scaling checks without naming an alarm', () => {
      // Prepare: the checks call PutMetricAlarm and DeleteAlarms with no alarm name and DescribeAlarms
      // with MaxRecords=1 (Application Auto Scaling user guide, "Permissions validation for API
      // calls on target resources"), so only a grant on every alarm passes them.
      const grants = stepGrants(stepNamed(asyncInference, 'CheckAsyncEndpoint'));

      // Act
      const alarmGrants = grants.filter((line) => line.includes(' cloudwatch:'));

      // Assert
      expect(alarmGrants).toEqual([
        'Allow cloudwatch:DeleteAlarms on *',
        'Allow cloudwatch:DescribeAlarms on *',
        'Allow cloudwatch:PutMetricAlarm on *',
      ]);
    });

    it('lets the clean-up step deregister autoscaling, delete its alarms and delete only mso-* resources', () => {
      // Act
      const grants = stepGrants(stepNamed(asyncInference, 'CleanUpAsyncRun'));

      // Assert
      expect(grants).toEqual(
        expect.arrayContaining([
          `Allow application-autoscaling:DeregisterScalableTarget on ${SCALABLE_TARGETS}`,
          ...['DescribeAlarms', 'DeleteAlarms'].flatMap((action) =>
            PROJECT_ALARMS.map((alarms) => `Allow cloudwatch:${action} on ${alarms}`),
          ),
          ...['DeleteEndpoint', 'DeleteEndpointConfig', 'DeleteModel'].flatMap((action) =>
            ['endpoint', 'endpoint-config', 'model'].map(
              (kind) => `Allow sagemaker:${action} on ${OWNED(kind)}`,
            ),
          ),
        ]),
      );
      expect(
        grants.filter((line) => /sagemaker:(Delete|Stop|AddTags)/.test(line) && !line.includes('/mso-*')),
      ).toEqual([]);
    });

    it('lets the summary read scaling activities and metric data, which have no resource-level scoping', () => {
      // Act
      const grants = stepGrants(stepNamed(asyncInference, 'SummarizeAsyncRun'));

      // Assert
      expect(grants.filter((line) => !/ (s3|kms):/.test(line))).toEqual([
        'Allow application-autoscaling:DescribeScalingActivities on *',
        'Allow cloudwatch:GetMetricData on *',
      ]);
    });

    it('gives every step the topics, the token table, the wait timeout and the SageMaker role, not an output key', () => {
      // Act
      const variables = asyncInference.steps.map(
        (fn) =>
          (propertiesOf(template, logicalIdOf(stack, fn)).Environment as { Variables: unknown }).Variables,
      );

      // Assert
      expect(variables).toHaveLength(8);
      for (const stepVariables of variables) {
        expect(stepVariables).not.toHaveProperty('ASYNC_OUTPUT_KMS_KEY_ID');
        expect(stepVariables).toMatchObject({
          ASYNC_SUCCESS_TOPIC_ARN: { Ref: successTopicId },
          ASYNC_ERROR_TOPIC_ARN: { Ref: errorTopicId },
          TASK_TOKEN_TABLE: { Ref: tableId },
          ASYNC_WAIT_TIMEOUT_SECONDS: '26100',
          SAGEMAKER_EXECUTION_ROLE_ARN: {
            'Fn::GetAtt': [logicalIdOf(stack, stack.sagemakerExecutionRole), 'Arn'],
          },
        });
      }
    });

    it('gives the notification Lambda and the heartbeat sender the token table', () => {
      // Act
      const variables = [notificationId, heartbeatId].map(
        (id) => (propertiesOf(template, id).Environment as { Variables: unknown }).Variables,
      );

      // Assert
      expect(variables).toEqual([
        expect.objectContaining({
          STEP_NAME: 'handle-async-notification',
          TASK_TOKEN_TABLE: { Ref: tableId },
        }),
        expect.objectContaining({ STEP_NAME: 'send-async-heartbeats', TASK_TOKEN_TABLE: { Ref: tableId } }),
      ]);
    });

    it('has no unacknowledged AwsSolutions findings in the whole stack', () => {
      // Assert
      expectNoUnacknowledgedNagFindings(stack);
    });
  });

  describe('with wait, heartbeat and execution settings', () => {
    const { stack, asyncInference, template } = buildStack({
      waitTimeout: Duration.hours(3),
      heartbeatTimeout: Duration.minutes(30),
      heartbeatInterval: Duration.minutes(10),
      executionTimeout: Duration.hours(12),
    });

    it('heartbeats every 10 minutes, each round valid until the next', () => {
      // Act
      const schedule = propertiesOf(template, logicalIdOf(stack, asyncInference.heartbeatSchedule));

      // Assert
      expect(schedule).toMatchObject({
        ScheduleExpression: 'rate(10 minutes)',
        Target: { RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 600 } },
      });
    });

    it('waits 3 hours with a 30-minute heartbeat, and tells the steps the wait timeout', () => {
      // Act
      const waitTask = stack.resolve(asyncInference.workflow.waitTask.toStateJson()) as Record<
        string,
        unknown
      >;
      const variables = (
        propertiesOf(template, logicalIdOf(stack, stepNamed(asyncInference, 'ValidateAsyncRun')))
          .Environment as { Variables: Record<string, unknown> }
      ).Variables;

      // Assert
      expect([waitTask.TimeoutSeconds, waitTask.HeartbeatSeconds]).toEqual([3 * 3600, 30 * 60]);
      expect(variables.ASYNC_WAIT_TIMEOUT_SECONDS).toBe(String(3 * 3600));
    });

    it('ends a run after the execution timeout', () => {
      // Prepare
      const logicalId = logicalIdOf(stack, asyncInference.workflow.stateMachine);

      // Act
      const stateMachine = extractStateMachines(template.toJSON()).find(
        (machine) => machine.logicalId === logicalId,
      );

      // Assert
      expect(stateMachine?.definition.TimeoutSeconds).toBe(12 * 3600);
    });
  });

  describe('resolveHeartbeatInterval', () => {
    it('defaults to 5 minutes, a third of the default 15-minute heartbeat timeout', () => {
      // Act
      const interval = resolveHeartbeatInterval(undefined, Duration.minutes(15), Duration.hours(7));

      // Assert
      expect(interval.toMinutes()).toBe(5);
    });

    it('fails when the interval exceeds a third of the heartbeat timeout', () => {
      // Act
      const act = () =>
        resolveHeartbeatInterval(Duration.minutes(6), Duration.minutes(15), Duration.hours(7));

      // Assert
      expect(act).toThrow(
        'AsyncInference heartbeatInterval: got 6 minutes, expected at most a third of heartbeatTimeout (15 minutes)',
      );
    });

    it('fails when the heartbeat timeout is not under the wait timeout', () => {
      // Act
      const act = () => resolveHeartbeatInterval(Duration.minutes(20), Duration.hours(1), Duration.hours(1));

      // Assert
      expect(act).toThrow(
        'AsyncInference heartbeatTimeout: got 1 hour, expected less than waitTimeout (1 hour)',
      );
    });

    it('fails when the interval is not whole minutes', () => {
      // Act
      const act = () =>
        resolveHeartbeatInterval(Duration.seconds(90), Duration.minutes(15), Duration.hours(7));

      // Assert
      expect(act).toThrow(
        'AsyncInference heartbeatInterval: got 1 minute 30 seconds, expected whole minutes, at least 1',
      );
    });
  });

  it('fails at synth when the stack’s heartbeat interval exceeds a third of its heartbeat timeout', () => {
    // Act
    const act = () =>
      buildStack({ heartbeatInterval: Duration.minutes(10), heartbeatTimeout: Duration.minutes(20) });

    // Assert
    expect(act).toThrow(
      /heartbeatInterval: got 10 minutes, expected at most a third of heartbeatTimeout \(20 minutes\)/,
    );
  });

  it('fails at synth when the stack’s heartbeat timeout reaches its wait timeout', () => {
    // Act
    const act = () => buildStack({ heartbeatTimeout: Duration.hours(2), waitTimeout: Duration.hours(2) });

    // Assert
    expect(act).toThrow(/heartbeatTimeout: got 2 hours, expected less than waitTimeout \(2 hours\)/);
  });
});

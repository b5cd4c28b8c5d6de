import { describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { RunNotifications } from '../../../infra/constructs/run-notifications.js';
import { ServingOptimizerStack } from '../../../infra/stacks/serving-optimizer-stack.js';
import { createTestApp, TEST_ENV } from '../app.js';
import { expectNoUnacknowledgedNagFindings } from '../nag.js';
import { grantsOf, logicalIdOf, propertiesOf } from '../policy-grants.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';

describe('RunNotifications', () => {
  const app = createTestApp();
  const stack = new ServingOptimizerStack(app, 'RunNotificationsTest', {
    env: TEST_ENV,
    includeWorkflows: false,
  });
  const notifications = new RunNotifications(stack, 'RunNotifications', {
    lambdas: stack,
    optimization: StateMachine.fromStateMachineArn(stack, 'Optimization', OPTIMIZATION_ARN),
    asyncInference: StateMachine.fromStateMachineArn(stack, 'AsyncInference', ASYNC_ARN),
    emailSubscriptions: ['ml-team@example.com'],
  });
  const template = Template.fromStack(stack);
  const topicId = logicalIdOf(stack, notifications.topic);
  const keyId = logicalIdOf(stack, notifications.topicKey);
  const functionId = logicalIdOf(stack, notifications.notifyRunSummary);
  const queueId = logicalIdOf(stack, notifications.deadLetterQueue);

  it('sends every execution of either state machine that ends to the notify Lambda', () => {
    // Act
    const rule = propertiesOf(template, logicalIdOf(stack, notifications.rule));

    // Assert
    expect(rule.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {
        status: ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'],
        stateMachineArn: [OPTIMIZATION_ARN, ASYNC_ARN],
      },
    });
    expect(rule.Targets).toEqual([
      {
        Id: 'Target0',
        Arn: { 'Fn::GetAtt': [functionId, 'Arn'] },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        RetryPolicy: { MaximumRetryAttempts: 8, MaximumEventAgeInSeconds: 6 * 3600 },
      },
    ]);
  });

  it('encrypts the topic with its own rotated key, which CloudWatch alarms may use', () => {
    // Act
    const topic = propertiesOf(template, topicId);
    const key = propertiesOf(template, keyId);

    // Assert
    expect(topic.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    expect(key.EnableKeyRotation).toBe(true);
    expect((key.KeyPolicy as { Statement: unknown[] }).Statement).toContainEqual({
      Effect: 'Allow',
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Resource: '*',
    });
  });

  it('refuses publishers that do not use TLS', () => {
    // Assert
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: [
          {
            Sid: 'AllowPublishThroughSSLOnly',
            Effect: 'Deny',
            Action: 'sns:Publish',
            Principal: '*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: { Ref: topicId },
          },
        ],
      },
    });
  });

  it('subscribes the given email addresses', () => {
    // Assert
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ml-team@example.com',
      TopicArn: { Ref: topicId },
    });
  });

  it('lets the Lambda publish to the topic with its key and describe executions of the two state machines only', () => {
    // Act
    const grants = grantsOf(template, logicalIdOf(stack, notifications.notifyRunSummary.serviceRole));

    // Assert
    const logGroup = logicalIdOf(stack, notifications.notifyRunSummary.functionLogGroup);
    expect(grants).toEqual(
      [
        `Allow sns:Publish on <${topicId}>`,
        `Allow kms:Decrypt on <${keyId}.Arn>`,
        `Allow kms:GenerateDataKey* on <${keyId}.Arn>`,
        'Allow states:DescribeExecution on arn:aws:states:us-east-1:123456789012:execution:Optimization:*',
        'Allow states:DescribeExecution on arn:aws:states:us-east-1:123456789012:execution:AsyncInference:*',
        `Allow sqs:GetQueueAttributes on <${queueId}.Arn>`,
        `Allow sqs:GetQueueUrl on <${queueId}.Arn>`,
        `Allow sqs:SendMessage on <${queueId}.Arn>`,
        `Allow logs:CreateLogStream on <${logGroup}.Arn>`,
        `Allow logs:PutLogEvents on <${logGroup}.Arn>`,
        'Allow xray:PutTelemetryRecords on *',
        'Allow xray:PutTraceSegments on *',
      ].sort(),
    );
  });

  it('tells the Lambda the topic and which state machine runs which workflow', () => {
    // Act
    const lambda = propertiesOf(template, functionId);

    // Assert
    expect(lambda.Environment).toEqual({
      Variables: expect.objectContaining({
        STEP_NAME: 'notify-run-summary',
        RUN_SUMMARY_TOPIC_ARN: { Ref: topicId },
        OPTIMIZATION_STATE_MACHINE_ARN: OPTIMIZATION_ARN,
        ASYNC_INFERENCE_STATE_MACHINE_ARN: ASYNC_ARN,
      }),
    });
  });

  it('has no unacknowledged AwsSolutions findings', () => {
    // Assert
    expectNoUnacknowledgedNagFindings(stack);
  });
});

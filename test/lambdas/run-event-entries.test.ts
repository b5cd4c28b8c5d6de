import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type * as NotifyEntry from '../../lambdas/notify-run-summary.js';
import type * as TriggerEntry from '../../lambdas/start-approved-model-run.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

/**
 * The Model Registry trigger and the run-summary notifier end to end: middy, Powertools, the real
 * adapters and core, the environment the constructs set, only the AWS clients mocked.
 */

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';
const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:mso-runs';
const MODEL_DATA_URL = 's3://mso-artifacts/models/churn/7/model.tar.gz';
const TEMPLATE = {
  input: {
    model: { framework: 'xgboost', frameworkVersion: '1.7' },
    payload: { uri: 's3://mso-artifacts/models/churn/payload.csv', contentType: 'text/csv' },
    candidates: [{ id: 'm5', instanceType: 'ml.m5.xlarge' }],
    loadPlan: { steps: [4], warmupSeconds: 10, stepDurationSeconds: 45 },
    sla: { p95LatencyMs: 20 },
  },
  fromPackage: [],
};

setStepEnvironment({
  OPTIMIZATION_STATE_MACHINE_ARN: OPTIMIZATION_ARN,
  ASYNC_INFERENCE_STATE_MACHINE_ARN: ASYNC_ARN,
  APPROVED_MODEL_RUN_TEMPLATE: JSON.stringify(TEMPLATE),
  RUN_SUMMARY_TOPIC_ARN: TOPIC_ARN,
});

const sfn = mockClient(SFNClient);
const sns = mockClient(SNSClient);
let triggerEntry: typeof TriggerEntry;
let notifyEntry: typeof NotifyEntry;

beforeAll(async () => {
  triggerEntry = await import('../../lambdas/start-approved-model-run.js');
  notifyEntry = await import('../../lambdas/notify-run-summary.js');
});

afterEach(() => {
  sfn.reset();
  sns.reset();
});

describe('start-approved-model-run entry', () => {
  it('starts the optimization state machine from the template in its environment', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:Optimization:approved-churn-v7',
      startDate: new Date(),
    });
    const event = {
      source: 'aws.sagemaker',
      'detail-type': 'SageMaker Model Package State Change',
      detail: {
        ModelPackageGroupName: 'churn',
        ModelPackageVersion: 7,
        ModelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/churn/7',
        ModelApprovalStatus: 'Approved',
        InferenceSpecification: { Containers: [{ ModelDataUrl: MODEL_DATA_URL }] },
      },
    };

    // Act
    const result = await triggerEntry.handler(event, fakeContext());

    // Assert
    expect(result).toMatchObject({ outcome: 'started', runId: 'approved-churn-v7' });
    const input = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(input?.stateMachineArn).toBe(OPTIMIZATION_ARN);
    expect(JSON.parse(input?.input ?? '{}')).toMatchObject({
      model: { framework: 'xgboost', artifactUri: MODEL_DATA_URL },
    });
  });
});

describe('notify-run-summary entry', () => {
  it('publishes the summary of an async run to the topic in its environment', async () => {
    // Prepare
    const executionArn = 'arn:aws:states:us-east-1:123456789012:execution:AsyncInference:batch-7';
    sfn.on(DescribeExecutionCommand).resolves({
      executionArn,
      stateMachineArn: ASYNC_ARN,
      status: 'SUCCEEDED',
      startDate: new Date('2026-11-22T02:00:00Z'),
      stopDate: new Date('2026-11-22T02:03:00Z'),
      output: '{"counts":{"succeeded":3,"failed":0}}',
    });
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
    const event = {
      source: 'aws.states',
      'detail-type': 'Step Functions Execution Status Change',
      detail: { executionArn, stateMachineArn: ASYNC_ARN, name: 'batch-7', status: 'SUCCEEDED' },
    };

    // Act
    const result = await notifyEntry.handler(event, fakeContext());

    // Assert
    expect(result).toEqual({ outcome: 'published', runId: 'batch-7', status: 'SUCCEEDED', messageId: 'm-1' });
    expect(sns.commandCalls(PublishCommand)[0]?.args[0].input).toMatchObject({
      TopicArn: TOPIC_ARN,
      Subject: 'Async inference run batch-7 succeeded: 3 succeeded, 0 failed',
      MessageAttributes: { workflow: { DataType: 'String', StringValue: 'async-inference' } },
    });
    expect(sns.commandCalls(PublishCommand)[0]?.args[0].input.Message).toContain(
      `https://us-east-1.console.aws.amazon.com/states/home?region=us-east-1#/v2/executions/details/${executionArn}`,
    );
  });
});

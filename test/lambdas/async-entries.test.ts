import { InvokeEndpointAsyncCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { SNSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type * as InvokeEntry from '../../lambdas/invoke-async-inference.js';
import type * as NotificationEntry from '../../lambdas/handle-async-notification.js';
import { completedMessage } from '../core/async/support/messages.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

/**
 * The two async-inference entries end to end: middy, Powertools, the real adapters and core, only
 * the AWS clients mocked. Logging is on (INFO), and everything written to stdout and stderr is captured to
 * check that no task token reaches a log line.
 */

setStepEnvironment({ TASK_TOKEN_TABLE: 'mso-async-task-tokens', POWERTOOLS_LOG_LEVEL: 'INFO' });

const TOKEN = `AQCEAAAAKgAAAAentries${'Zq9'.repeat(600)}`;
const dynamo = mockClient(DynamoDBDocumentClient);
const sfn = mockClient(SFNClient);
const runtime = mockClient(SageMakerRuntimeClient);

let invokeEntry: typeof InvokeEntry;
let notificationEntry: typeof NotificationEntry;
let written: string[];

beforeAll(async () => {
  invokeEntry = await import('../../lambdas/invoke-async-inference.js');
  notificationEntry = await import('../../lambdas/handle-async-notification.js');
});

function captureStdout(): void {
  written = [];
  // Powertools writes info to stdout, warnings and errors to stderr.
  for (const stream of [process.stdout, process.stderr]) {
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });
  }
}

afterEach(() => {
  jest.restoreAllMocks();
  dynamo.reset();
  sfn.reset();
  runtime.reset();
});

describe('invoke-async-inference entry', () => {
  it('stores the token, queues the input and returns the receipt, logging no token', async () => {
    // Arrange
    captureStdout();
    dynamo.on(PutCommand).resolves({});
    runtime
      .on(InvokeEndpointAsyncCommand)
      .resolves({ OutputLocation: 's3://mso-async-output/results/a.out' });

    // Act
    const receipt = await invokeEntry.handler(
      {
        taskToken: TOKEN,
        runId: 'nightly',
        itemIndex: 2,
        inputLocation: 's3://mso-async-input/inputs/0002.json',
        endpointName: 'mso-async-endpoint',
        contentType: 'application/json',
        invocationTimeoutSeconds: 900,
        requestTtlSeconds: 1800,
        waitTimeoutSeconds: 3600,
      },
      fakeContext(),
    );

    // Assert
    expect(receipt.outputLocation).toBe('s3://mso-async-output/results/a.out');
    expect(dynamo.commandCalls(PutCommand)[0]?.args[0].input).toMatchObject({
      TableName: 'mso-async-task-tokens',
      Item: { inferenceId: receipt.inferenceId, taskToken: TOKEN, endpointName: 'mso-async-endpoint' },
    });
    expect(runtime.commandCalls(InvokeEndpointAsyncCommand)[0]?.args[0].input).toMatchObject({
      EndpointName: 'mso-async-endpoint',
      InferenceId: receipt.inferenceId,
      InvocationTimeoutSeconds: 900,
      RequestTTLSeconds: 1800,
    });
    expect(written.join('')).toContain('Async inference queued');
    expect(written.join('')).not.toContain(TOKEN.slice(0, 24));
  });
});

describe('handle-async-notification entry', () => {
  it('resumes the task from an SNS event, logging no token', async () => {
    // Arrange
    captureStdout();
    const inferenceId = 'mso-nightly-1a2b3c4d-item-2';
    dynamo.on(GetCommand).resolves({
      Item: {
        inferenceId,
        taskToken: TOKEN,
        runId: 'nightly',
        itemIndex: 2,
        inputLocation: 's3://mso-async-input/inputs/0002.json',
        storedAtEpochMs: Date.parse('2026-05-23T03:23:00.000Z'),
        expiresAt: 1_780_028_800,
      },
    });
    dynamo.on(UpdateCommand).resolves({});
    sfn.on(SendTaskSuccessCommand).resolves({});
    const event: SNSEvent = {
      Records: [
        {
          EventSource: 'aws:sns',
          EventVersion: '1.0',
          EventSubscriptionArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-success:0b6941c3',
          Sns: {
            Type: 'Notification',
            MessageId: '95df01b4-ee98-5cb9-9903-4c221d41eb5e',
            TopicArn: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
            Subject: '',
            Message: completedMessage(inferenceId),
            Timestamp: '2026-05-23T03:23:22.000Z',
            SignatureVersion: '1',
            Signature: 'EXAMPLE',
            SigningCertUrl: 'https://sns.us-east-1.amazonaws.com/cert.pem',
            UnsubscribeUrl: 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe',
            MessageAttributes: {},
          },
        },
      ],
    };

    // Act
    const summary = await notificationEntry.handler(event, fakeContext());

    // Assert
    expect(summary.resumedSuccess).toBe(1);
    expect(sfn.commandCalls(SendTaskSuccessCommand)[0]?.args[0].input.taskToken).toBe(TOKEN);
    expect(written.join('')).toContain('Task resumed with the inference result');
    expect(written.join('')).not.toContain(TOKEN.slice(0, 24));
  });

  it('counts a record without Message as malformed instead of failing the batch with a TypeError', async () => {
    // Arrange
    captureStdout();
    const event = { Records: [{ EventSource: 'aws:sns' }, { Sns: { MessageId: 'm-1' } }] };

    // Act
    const summary = await notificationEntry.handler(event, fakeContext());

    // Assert
    expect(summary.malformed).toBe(2);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('fails the invocation so that Lambda redelivers when Step Functions is unavailable', async () => {
    captureStdout();
    dynamo.on(GetCommand).resolves({
      Item: {
        inferenceId: 'i-9',
        taskToken: TOKEN,
        runId: 'nightly',
        itemIndex: 9,
        inputLocation: 's3://mso-async-input/inputs/0009.json',
        storedAtEpochMs: 0,
        expiresAt: 1,
      },
    });
    sfn
      .on(SendTaskSuccessCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    const run = notificationEntry.handler(
      { Records: [{ Sns: { MessageId: 'm-9', Message: completedMessage('i-9') } }] },
      fakeContext(),
    );

    await expect(run).rejects.toMatchObject({ name: 'TransientServiceError' });
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(written.join('')).toContain('Notification not processed');
    expect(written.join('')).not.toContain(TOKEN.slice(0, 24));
  });

  it('fails only the record DynamoDB refuses (ValidationException), resuming the others and not failing the invocation', async () => {
    // Arrange
    captureStdout();
    const good = 'mso-nightly-1a2b3c4d-item-3';
    dynamo.on(GetCommand).resolves({
      Item: {
        inferenceId: good,
        taskToken: TOKEN,
        runId: 'nightly',
        itemIndex: 3,
        inputLocation: 's3://mso-async-input/inputs/0003.json',
        storedAtEpochMs: Date.parse('2026-05-23T03:23:00.000Z'),
        expiresAt: 1_780_028_800,
      },
    });
    dynamo.on(GetCommand, { Key: { inferenceId: 'refused-id' } }).rejects(
      Object.assign(new Error('One or more parameter values were invalid: a test refusal'), {
        name: 'ValidationException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    dynamo.on(UpdateCommand).resolves({});
    sfn.on(SendTaskSuccessCommand).resolves({});

    // Act
    const summary = await notificationEntry.handler(
      {
        Records: [
          { Sns: { MessageId: 'm-refused', Message: completedMessage('refused-id') } },
          { Sns: { MessageId: 'm-good', Message: completedMessage(good) } },
        ],
      },
      fakeContext(),
    );

    // Assert
    expect(summary).toMatchObject({ refused: 1, resumedSuccess: 1, retryLater: 0 });
    expect(written.join('')).toContain('Notification refused by the token store; this record alone fails');
  });

  it('never sends a 1 MB inferenceId to DynamoDB: the record is malformed, the invocation succeeds', async () => {
    // Arrange
    captureStdout();
    const huge = 'x'.repeat(1024 * 1024);

    // Act
    const summary = await notificationEntry.handler(
      { Records: [{ Sns: { MessageId: 'm-huge', Message: completedMessage(huge) } }] },
      fakeContext(),
    );

    // Assert
    expect(summary).toMatchObject({ malformed: 1, retryLater: 0 });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
    expect(written.join('').length).toBeLessThan(100_000);
  });
});

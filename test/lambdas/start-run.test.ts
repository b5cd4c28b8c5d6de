import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type * as StartRunEntry from '../../lambdas/start-run.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

/**
 * The start-run entry end to end: middy and Powertools, the real adapter and core, only the Step
 * Functions client mocked, and events as API Gateway's Lambda proxy integration sends them.
 */

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';
setStepEnvironment({
  OPTIMIZATION_STATE_MACHINE_ARN: OPTIMIZATION_ARN,
  ASYNC_INFERENCE_STATE_MACHINE_ARN: ASYNC_ARN,
});

const sfn = mockClient(SFNClient);
let entry: typeof StartRunEntry;

beforeAll(async () => {
  entry = await import('../../lambdas/start-run.js');
});

function proxyEvent(resource: string, body: unknown) {
  return {
    resource,
    path: resource,
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      requestId: 'c0ffee00-1111-2222-3333-444455556666',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      stage: 'v1',
      identity: { userArn: 'arn:aws:iam::123456789012:user/operator' },
    },
  };
}

describe('start-run entry', () => {
  it('starts an async run on the async-inference state machine and answers 200 as JSON', async () => {
    // Prepare
    sfn.reset();
    sfn.on(StartExecutionCommand).resolves({
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:AsyncInference:batch-7',
      startDate: new Date('2026-11-24T10:00:00Z'),
    });
    const input = { endpointName: 'team-async-endpoint', inputs: ['s3://user-data/async/in-1.json'] };

    // Act
    const result = await entry.handler(proxyEvent('/async-runs', { runId: 'batch-7', input }), fakeContext());

    // Assert
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input)).toEqual([
      { stateMachineArn: ASYNC_ARN, name: 'batch-7', input: JSON.stringify(input) },
    ]);
    expect(result).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        runId: 'batch-7',
        executionArn: 'arn:aws:states:us-east-1:123456789012:execution:AsyncInference:batch-7',
        startDate: 1795514400,
        statusUrl: 'https://abc123.execute-api.us-east-1.amazonaws.com/v1/async-runs/batch-7',
      }),
    });
  });

  it('answers 400 with the issues and calls nothing when the input is invalid', async () => {
    // Prepare
    sfn.reset();

    // Act
    const result = await entry.handler(
      proxyEvent('/runs', { runId: 'nightly', input: { payload: {} } }),
      fakeContext(),
    );

    // Assert
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toMatchObject({
      error: 'InvalidRunInput',
      issues: expect.arrayContaining([expect.objectContaining({ field: 'payload.uri' })]),
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
  });

  it.each([
    ['no body key', { resource: '/runs', requestContext: proxyEvent('/runs', {}).requestContext }],
    ['another route', { ...proxyEvent('/runs/{id}', {}) }],
    ['no requestContext', { resource: '/runs', body: '{}' }],
  ])('answers 400, never throws, to an event API Gateway never sends (%s)', async (_name, event) => {
    // Prepare
    sfn.reset();

    // Act
    const result = await entry.handler(event, fakeContext());

    // Assert
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toMatchObject({
      error: 'InvalidRequest',
      message: expect.stringContaining('start-run: got an event API Gateway does not send'),
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
  });
});

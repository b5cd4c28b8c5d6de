import { DescribeExecutionCommand, GetExecutionHistoryCommand, SFNClient } from '@aws-sdk/client-sfn';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type * as DescribeRunEntry from '../../lambdas/describe-run.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

/**
 * The describe-run entry end to end: middy and Powertools, the real adapter and core, only the
 * Step Functions client mocked, and an event as API Gateway's Lambda proxy integration sends it.
 */

const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
setStepEnvironment({ OPTIMIZATION_STATE_MACHINE_ARN: STATE_MACHINE_ARN });

const sfn = mockClient(SFNClient);
let entry: typeof DescribeRunEntry;

beforeAll(async () => {
  entry = await import('../../lambdas/describe-run.js');
});

function proxyEvent(resource: string, id: string) {
  return {
    resource,
    path: resource.replace('{id}', id),
    httpMethod: 'GET',
    pathParameters: { id },
    requestContext: { identity: { userArn: 'arn:aws:iam::123456789012:user/operator' } },
  };
}

describe('describe-run entry', () => {
  it('answers GET /runs/{id} with the status as JSON', async () => {
    // Prepare
    sfn.reset();
    sfn.on(DescribeExecutionCommand).resolves({
      executionArn: `${STATE_MACHINE_ARN.replace('stateMachine', 'execution')}:nightly`,
      stateMachineArn: STATE_MACHINE_ARN,
      status: 'RUNNING',
      startDate: new Date('2026-03-01T08:00:00Z'),
    });
    sfn.on(GetExecutionHistoryCommand).resolves({
      events: [
        {
          id: 2,
          previousEventId: 1,
          type: 'TaskStateEntered',
          timestamp: new Date('2026-03-01T08:00:01Z'),
          stateEnteredEventDetails: { name: 'Validate and plan' },
        },
        { id: 1, type: 'ExecutionStarted', timestamp: new Date('2026-03-01T08:00:00Z') },
      ],
    });

    // Act
    const result = await entry.handler(proxyEvent('/runs/{id}', 'nightly'), fakeContext());

    // Assert
    expect(sfn.commandCalls(DescribeExecutionCommand)[0]?.args[0].input).toEqual({
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly',
    });
    expect(result.statusCode).toBe(200);
    expect(result.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(JSON.parse(result.body)).toEqual({
      runId: 'nightly',
      workflow: 'optimization',
      status: 'RUNNING',
      executionArn: 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly',
      startDate: '2026-03-01T08:00:00.000Z',
      progress: { phase: 'Validate and plan', historyEventsRead: 2 },
    });
  });

  it('answers 404 for GET /async-runs/{id} when no async-inference workflow is configured', async () => {
    // Prepare
    sfn.reset();

    // Act
    const result = await entry.handler(proxyEvent('/async-runs/{id}', 'batch-7'), fakeContext());

    // Assert
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toEqual({
      error: 'RunNotFound',
      message:
        'ResourceNotFoundError: The async-inference workflow is not deployed with this API: no state machine ARN for it',
    });
    expect(sfn.calls()).toHaveLength(0);
  });
});

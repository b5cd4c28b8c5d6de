import { ExecutionDoesNotExist, GetExecutionHistoryCommand, SFNClient } from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { SfnExecutionReader } from '../../../lambdas/adapters/sfn-execution-reader.js';
import { SfnRunEvents } from '../../../lambdas/adapters/sfn-run-events.js';
import { formatViolation, validateCommand } from '../../conformance/request-validator.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly';
const sfn = mockClient(SFNClient);
const client = new SFNClient({ region: 'us-east-1' });
const reader = new SfnRunEvents({
  client,
  executions: new SfnExecutionReader({ client, stateMachineArns: { optimization: OPTIMIZATION_ARN } }),
});
const RUN = { workflow: 'optimization', runId: 'nightly' } as const;
const AT = new Date('2026-11-24T10:00:00Z');

describe('SfnRunEvents', () => {
  beforeEach(() => {
    sfn.reset();
  });

  it('reads one page newest first without execution data, and keeps each event’s state, error and cause', async () => {
    // Prepare
    sfn.on(GetExecutionHistoryCommand).resolves({
      nextToken: 'more',
      events: [
        {
          id: 12,
          type: 'TaskFailed',
          timestamp: AT,
          taskFailedEventDetails: {
            resourceType: 'lambda',
            resource: 'invoke',
            error: 'QuotaExceededError',
            cause: 'ml.g5',
          },
        },
        {
          id: 11,
          type: 'TaskStateExited',
          timestamp: AT,
          stateExitedEventDetails: { name: 'Deploy candidate' },
        },
        {
          id: 10,
          type: 'TaskStateEntered',
          timestamp: AT,
          stateEnteredEventDetails: { name: 'Deploy candidate' },
        },
        {
          id: 9,
          type: 'MapIterationStarted',
          timestamp: AT,
          mapIterationStartedEventDetails: { name: 'Benchmark', index: 0 },
        },
      ],
    });

    // Act
    const newest = await reader.newest(RUN, 4);

    // Assert
    const calls = sfn.commandCalls(GetExecutionHistoryCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      { executionArn: EXECUTION_ARN, maxResults: 4, reverseOrder: true, includeExecutionData: false },
    ]);
    expect(calls.flatMap((call) => validateCommand(call.args[0] as never)).map(formatViolation)).toEqual([]);
    expect(newest).toEqual({
      truncated: true,
      events: [
        { id: 12, type: 'TaskFailed', timestamp: AT, error: 'QuotaExceededError', cause: 'ml.g5' },
        { id: 11, type: 'TaskStateExited', timestamp: AT, state: 'Deploy candidate' },
        { id: 10, type: 'TaskStateEntered', timestamp: AT, state: 'Deploy candidate' },
        { id: 9, type: 'MapIterationStarted', timestamp: AT },
      ],
    });
  });

  it('returns undefined when the execution does not exist', async () => {
    // Prepare
    sfn
      .on(GetExecutionHistoryCommand)
      .rejects(new ExecutionDoesNotExist({ $metadata: {}, message: 'Execution Does Not Exist' }));

    // Act
    const newest = await reader.newest(RUN, 10);

    // Assert
    expect(newest).toBeUndefined();
  });
});

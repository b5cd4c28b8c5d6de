import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  ExecutionStatus,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  SFNClient,
  SFNServiceException,
} from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import type { HistoryEventView } from '../../../core/run-status/ports.js';
import { ExecutionStatuses } from '../../../core/contracts/run-api-contract.js';
import {
  HISTORY_PAGE_SIZE,
  MAX_HISTORY_PAGES,
  SfnExecutionReader,
} from '../../../lambdas/adapters/sfn-execution-reader.js';

const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:OptimizationStateMachine1A2B3C';
const EXECUTION_ARN =
  'arn:aws:states:us-east-1:123456789012:execution:OptimizationStateMachine1A2B3C:nightly-cpu';
const RUN = { workflow: 'optimization', runId: 'nightly-cpu' } as const;

const sfn = mockClient(SFNClient);
const reader = new SfnExecutionReader({
  client: new SFNClient({ region: 'us-east-1' }),
  stateMachineArns: { optimization: STATE_MACHINE_ARN },
});

function timestamp(seconds: number): Date {
  return new Date(Date.UTC(2026, 2, 1, 8, 0, seconds));
}

async function collect(events: AsyncIterable<HistoryEventView>, limit = Number.POSITIVE_INFINITY) {
  const collected: HistoryEventView[] = [];
  for await (const event of events) {
    collected.push(event);
    if (collected.length >= limit) break;
  }
  return collected;
}

describe('SfnExecutionReader', () => {
  beforeEach(() => {
    sfn.reset();
  });

  describe('describe', () => {
    it('describes the execution named after the run, on the workflow’s state machine', async () => {
      // Prepare
      sfn.on(DescribeExecutionCommand).resolves({
        executionArn: EXECUTION_ARN,
        stateMachineArn: STATE_MACHINE_ARN,
        name: 'nightly-cpu',
        status: 'FAILED',
        startDate: timestamp(0),
        stopDate: timestamp(90),
        error: 'QuotaExceededError',
        cause: 'ResourceLimitExceeded',
      });

      // Act
      const description = await reader.describe(RUN);

      // Assert
      expect(sfn.commandCalls(DescribeExecutionCommand).map((call) => call.args[0].input)).toEqual([
        { executionArn: EXECUTION_ARN },
      ]);
      expect(description).toEqual({
        executionArn: EXECUTION_ARN,
        status: 'FAILED',
        startDate: timestamp(0),
        stopDate: timestamp(90),
        error: 'QuotaExceededError',
        cause: 'ResourceLimitExceeded',
      });
    });

    it('gives nothing when Step Functions has no such execution', async () => {
      // Prepare
      sfn.on(DescribeExecutionCommand).rejects(
        new ExecutionDoesNotExist({
          message: `Execution Does Not Exist: '${EXECUTION_ARN}'`,
          $metadata: {},
        }),
      );

      // Act
      const description = await reader.describe(RUN);

      // Assert
      expect(description).toBeUndefined();
    });

    it('fails with TransientServiceError when Step Functions throttles', async () => {
      // Prepare
      sfn.on(DescribeExecutionCommand).rejects(
        new SFNServiceException({
          name: 'ThrottlingException',
          message: 'Rate exceeded',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        }),
      );

      // Act
      const act = reader.describe(RUN);

      // Assert
      await expect(act).rejects.toBeInstanceOf(TransientServiceError);
      await expect(act).rejects.toMatchObject({
        name: 'TransientServiceError',
        message: 'Step Functions DescribeExecution failed: ThrottlingException: Rate exceeded',
      });
    });

    it('fails when the async-inference workflow is not deployed with the reader', async () => {
      // Act
      const act = reader.describe({ workflow: 'async-inference', runId: 'batch-7' });

      // Assert
      await expect(act).rejects.toMatchObject({
        name: 'ResourceNotFoundError',
        message: 'The async-inference workflow is not deployed with this API: no state machine ARN for it',
      });
      expect(sfn.calls()).toHaveLength(0);
    });
  });

  describe('newestEvents', () => {
    const page1: HistoryEvent[] = [
      {
        id: 42,
        previousEventId: 41,
        type: 'MapIterationSucceeded',
        timestamp: timestamp(42),
        mapIterationSucceededEventDetails: { name: 'Benchmark each candidate', index: 1 },
      },
      {
        id: 12,
        previousEventId: 11,
        type: 'MapStateStarted',
        timestamp: timestamp(12),
        mapStateStartedEventDetails: { length: 3 },
      },
    ];
    const page2: HistoryEvent[] = [
      {
        id: 11,
        previousEventId: 10,
        type: 'MapStateEntered',
        timestamp: timestamp(11),
        stateEnteredEventDetails: { name: 'Benchmark each candidate' },
      },
      { id: 1, previousEventId: 0, type: 'ExecutionStarted', timestamp: timestamp(0) },
    ];

    it('reads every page newest first, 1,000 events at a time, without execution data', async () => {
      // Prepare
      sfn
        .on(GetExecutionHistoryCommand)
        .resolvesOnce({ events: page1, nextToken: 'page-2' })
        .resolvesOnce({ events: page2 });

      // Act
      const events = await collect(reader.newestEvents(RUN));

      // Assert
      expect(sfn.commandCalls(GetExecutionHistoryCommand).map((call) => call.args[0].input)).toEqual([
        { executionArn: EXECUTION_ARN, reverseOrder: true, maxResults: 1000, includeExecutionData: false },
        {
          executionArn: EXECUTION_ARN,
          reverseOrder: true,
          maxResults: 1000,
          includeExecutionData: false,
          nextToken: 'page-2',
        },
      ]);
      expect(events).toEqual([
        {
          id: 42,
          previousEventId: 41,
          type: 'MapIterationSucceeded',
          mapIterationOf: 'Benchmark each candidate',
        },
        { id: 12, previousEventId: 11, type: 'MapStateStarted', mapItemCount: 3 },
        { id: 11, previousEventId: 10, type: 'MapStateEntered', enteredState: 'Benchmark each candidate' },
        { id: 1, previousEventId: 0, type: 'ExecutionStarted' },
      ]);
    });

    it('asks for no further page once the consumer stops', async () => {
      // Prepare
      sfn
        .on(GetExecutionHistoryCommand)
        .resolvesOnce({ events: page1, nextToken: 'page-2' })
        .resolvesOnce({ events: page2 });

      // Act
      const events = await collect(reader.newestEvents(RUN), 2);

      // Assert
      expect(events.map((event) => event.id)).toEqual([42, 12]);
      expect(sfn.commandCalls(GetExecutionHistoryCommand)).toHaveLength(1);
    });

    it('stops after 25 pages, the most a 25,000-event history fills', async () => {
      // Prepare
      sfn.on(GetExecutionHistoryCommand).resolves({
        events: [{ id: 7, type: 'TaskStarted', timestamp: timestamp(7) }],
        nextToken: 'always-more',
      });

      // Act
      const events = await collect(reader.newestEvents(RUN));

      // Assert
      expect([MAX_HISTORY_PAGES * HISTORY_PAGE_SIZE, events.length]).toEqual([25_000, 25]);
      expect(sfn.commandCalls(GetExecutionHistoryCommand)).toHaveLength(25);
    });
  });

  it('fails when a state machine ARN is malformed', () => {
    // Act
    const act = () =>
      new SfnExecutionReader({
        client: new SFNClient({ region: 'us-east-1' }),
        stateMachineArns: { optimization: 'OptimizationStateMachine' },
      });

    // Assert
    expect(act).toThrow(
      'SfnExecutionReader: got the optimization state machine ARN "OptimizationStateMachine", expected ' +
        'arn:<partition>:states:<region>:<account>:stateMachine:<name>',
    );
  });

  it('knows every execution status the SDK does', () => {
    // Assert
    expect(Object.values(ExecutionStatuses).sort()).toEqual(Object.values(ExecutionStatus).sort());
  });
});

import {
  type ExecutionListItem,
  ListExecutionsCommand,
  SFNClient,
  SFNServiceException,
} from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { SfnRunLister } from '../../../lambdas/adapters/sfn-run-lister.js';
import { formatViolation, validateCommand } from '../../conformance/request-validator.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const sfn = mockClient(SFNClient);
const lister = new SfnRunLister({
  client: new SFNClient({ region: 'us-east-1' }),
  stateMachineArns: { optimization: OPTIMIZATION_ARN },
});

/** An ended execution that started `hour`:00 and stopped `hour`:30 on 2026-11-24. */
function ended(name: string, hour: number): ExecutionListItem {
  return {
    name,
    executionArn: `arn:aws:states:us-east-1:123456789012:execution:Optimization:${name}`,
    stateMachineArn: OPTIMIZATION_ARN,
    status: 'SUCCEEDED',
    startDate: new Date(Date.UTC(2026, 10, 24, hour, 0)),
    stopDate: new Date(Date.UTC(2026, 10, 24, hour, 30)),
  };
}

describe('SfnRunLister', () => {
  beforeEach(() => {
    sfn.reset();
  });

  it('lists the state machine’s executions with the status filter, one more than the limit to tell if there are more', async () => {
    // Prepare
    sfn.on(ListExecutionsCommand).resolves({ executions: [ended('c', 10), ended('b', 9), ended('a', 8)] });

    // Act
    const listed = await lister.list({ workflow: 'optimization', status: 'SUCCEEDED', limit: 2 });

    // Assert
    const calls = sfn.commandCalls(ListExecutionsCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      { stateMachineArn: OPTIMIZATION_ARN, maxResults: 3, statusFilter: 'SUCCEEDED' },
    ]);
    expect(calls.flatMap((call) => validateCommand(call.args[0] as never)).map(formatViolation)).toEqual([]);
    expect(listed).toEqual({
      executions: [
        {
          name: 'c',
          executionArn: ended('c', 10).executionArn,
          status: 'SUCCEEDED',
          startDate: new Date('2026-11-24T10:00:00Z'),
          stopDate: new Date('2026-11-24T10:30:00Z'),
        },
        {
          name: 'b',
          executionArn: ended('b', 9).executionArn,
          status: 'SUCCEEDED',
          startDate: new Date('2026-11-24T09:00:00Z'),
          stopDate: new Date('2026-11-24T09:30:00Z'),
        },
      ],
      truncated: true,
    });
  });

  it('pages with `since`, stopping at the first execution sorted before it', async () => {
    // Prepare
    sfn
      .on(ListExecutionsCommand, { nextToken: undefined })
      .resolves({ executions: [ended('d', 11), ended('c', 10)], nextToken: 'page-2' })
      .on(ListExecutionsCommand, { nextToken: 'page-2' })
      .resolves({ executions: [ended('b', 9), ended('a', 8)], nextToken: 'page-3' });

    // Act
    const listed = await lister.list({
      workflow: 'optimization',
      since: new Date('2026-11-24T09:15:00Z'),
      limit: 50,
    });

    // Assert
    expect(sfn.commandCalls(ListExecutionsCommand).map((call) => call.args[0].input)).toEqual([
      { stateMachineArn: OPTIMIZATION_ARN, maxResults: 1000 },
      { stateMachineArn: OPTIMIZATION_ARN, maxResults: 1000, nextToken: 'page-2' },
    ]);
    // b stopped at 09:30, after `since`, but started at 09:00, before it; a stopped before it: the end.
    expect(listed.executions.map((execution) => execution.name)).toEqual(['d', 'c']);
    expect(listed.truncated).toBe(false);
  });

  it('reports throttling as a transient failure', async () => {
    // Prepare
    sfn.on(ListExecutionsCommand).rejects(
      new SFNServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        $metadata: {},
        message: 'Rate exceeded',
      }),
    );

    // Act
    const listing = lister.list({ workflow: 'optimization', limit: 5 });

    // Assert
    await expect(listing).rejects.toThrow(
      new TransientServiceError('Step Functions ListExecutions failed: ThrottlingException: Rate exceeded'),
    );
  });

  it('fails naming the workflow when its state machine is not deployed with the API', async () => {
    // Act
    const listing = lister.list({ workflow: 'async-inference', limit: 5 });

    // Assert
    await expect(listing).rejects.toThrow(
      'The async-inference workflow is not deployed with this API: no state machine ARN for it',
    );
    expect(sfn.commandCalls(ListExecutionsCommand)).toEqual([]);
  });
});

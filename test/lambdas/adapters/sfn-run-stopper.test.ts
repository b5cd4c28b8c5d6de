import { SFNClient, SFNServiceException, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { SfnExecutionReader } from '../../../lambdas/adapters/sfn-execution-reader.js';
import { SfnRunStopper } from '../../../lambdas/adapters/sfn-run-stopper.js';
import { formatViolation, validateCommand } from '../../conformance/request-validator.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly';
const sfn = mockClient(SFNClient);
const client = new SFNClient({ region: 'us-east-1' });
const stopper = new SfnRunStopper({
  client,
  executions: new SfnExecutionReader({ client, stateMachineArns: { optimization: OPTIMIZATION_ARN } }),
});
const RUN = { workflow: 'optimization', runId: 'nightly' } as const;

describe('SfnRunStopper', () => {
  beforeEach(() => {
    sfn.reset();
  });

  it('stops the run’s execution with the error and cause, and returns when it stopped', async () => {
    // Prepare
    const stopDate = new Date('2026-11-24T10:00:00Z');
    sfn.on(StopExecutionCommand).resolves({ stopDate });

    // Act
    const stopped = await stopper.stop(RUN, {
      error: 'RunStopped',
      cause: 'Stopped through the run API by me',
    });

    // Assert
    const calls = sfn.commandCalls(StopExecutionCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      { executionArn: EXECUTION_ARN, error: 'RunStopped', cause: 'Stopped through the run API by me' },
    ]);
    expect(calls.flatMap((call) => validateCommand(call.args[0] as never)).map(formatViolation)).toEqual([]);
    expect(stopped).toEqual({ stopDate });
  });

  it('cuts a cause longer than StopExecution accepts (32,768 characters)', async () => {
    // Prepare
    sfn.on(StopExecutionCommand).resolves({ stopDate: new Date() });

    // Act
    await stopper.stop(RUN, { error: 'RunStopped', cause: 'x'.repeat(40_000) });

    // Assert
    const input = sfn.commandCalls(StopExecutionCommand)[0]?.args[0].input;
    expect(input?.cause?.length).toBe(32_768);
    expect(validateCommand(sfn.commandCalls(StopExecutionCommand)[0]?.args[0] as never)).toEqual([]);
  });

  it('reports a 5xx as a transient failure', async () => {
    // Prepare
    sfn.on(StopExecutionCommand).rejects(
      new SFNServiceException({
        name: 'ServiceUnavailable',
        $fault: 'server',
        $metadata: { httpStatusCode: 503 },
        message: 'try later',
      }),
    );

    // Act
    const stopping = stopper.stop(RUN, { error: 'RunStopped', cause: 'c' });

    // Assert
    await expect(stopping).rejects.toThrow(
      new TransientServiceError('Step Functions StopExecution failed: ServiceUnavailable: try later'),
    );
  });
});

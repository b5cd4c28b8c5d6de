import { DescribeExecutionCommand, ExecutionDoesNotExist, SFNClient } from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { SfnRunActivity } from '../../../lambdas/adapters/sfn-run-activity.js';
import { FakeStepFunctions } from '../../support/fake-step-functions.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';
const OPTIMIZATION_EXECUTION = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly-1';
const ASYNC_EXECUTION = 'arn:aws:states:us-east-1:123456789012:execution:AsyncInference:nightly-1';
const START = new Date('2026-11-22T02:00:00.000Z');
const sfn = mockClient(SFNClient);
const runs = new SfnRunActivity({
  client: new SFNClient({ region: 'us-east-1' }),
  stateMachineArns: { optimization: OPTIMIZATION_ARN, 'async-inference': ASYNC_ARN },
});
const notFound = () => new ExecutionDoesNotExist({ message: 'Execution Does Not Exist', $metadata: {} });

function describes(): unknown[] {
  return sfn.commandCalls(DescribeExecutionCommand).map((call) => call.args[0].input);
}

describe('SfnRunActivity', () => {
  beforeEach(() => {
    sfn.reset();
  });

  it('describes the run’s execution in each state machine, by the ARN built from its name', async () => {
    // Prepare
    sfn
      .on(DescribeExecutionCommand, { executionArn: OPTIMIZATION_EXECUTION })
      .rejects(notFound())
      .on(DescribeExecutionCommand, { executionArn: ASYNC_EXECUTION })
      .resolves({ executionArn: ASYNC_EXECUTION, status: 'RUNNING', startDate: START });

    // Act
    const state = await runs.runState('nightly-1');

    // Assert
    expect(state).toEqual({ liveIn: ['async-inference'], found: true });
    expect(describes()).toEqual([
      { executionArn: OPTIMIZATION_EXECUTION },
      { executionArn: ASYNC_EXECUTION },
    ]);
  });

  it('counts a failed execution waiting for its redrive as under way', async () => {
    // Prepare
    sfn
      .on(DescribeExecutionCommand, { executionArn: OPTIMIZATION_EXECUTION })
      .resolves({ executionArn: OPTIMIZATION_EXECUTION, status: 'PENDING_REDRIVE', startDate: START })
      .on(DescribeExecutionCommand, { executionArn: ASYNC_EXECUTION })
      .rejects(notFound());

    // Act
    const state = await runs.runState('nightly-1');

    // Assert
    expect(state).toEqual({ liveIn: ['optimization'], found: true });
  });

  it('says when a run that ended stopped, and that it is under way nowhere', async () => {
    // Prepare
    const stop = new Date('2026-11-22T05:00:00.000Z');
    sfn
      .on(DescribeExecutionCommand, { executionArn: OPTIMIZATION_EXECUTION })
      .resolves({
        executionArn: OPTIMIZATION_EXECUTION,
        status: 'TIMED_OUT',
        startDate: START,
        stopDate: stop,
      })
      .on(DescribeExecutionCommand, { executionArn: ASYNC_EXECUTION })
      .rejects(notFound());

    // Act
    const state = await runs.runState('nightly-1');

    // Assert
    expect(state).toEqual({ liveIn: [], found: true, endedEpochMs: stop.getTime() });
  });

  it('says a run no state machine knows was not found', async () => {
    // Prepare
    sfn.on(DescribeExecutionCommand).rejects(notFound());

    // Act
    const state = await runs.runState('nightly-1');

    // Assert
    expect(state).toEqual({ liveIn: [], found: false });
  });

  it('reads a run redriven after it failed as under way, and its second end as its end', async () => {
    // Prepare: DescribeExecution as AWS answers it, over a fake that redrives.
    sfn.restore();
    const stepFunctions = new FakeStepFunctions({ now: () => clock });
    const served = stepFunctions.serve();
    let clock = START.getTime();
    const arn = stepFunctions.start(OPTIMIZATION_ARN, 'nightly-1');
    clock += 3_600_000;
    stepFunctions.end(arn, 'FAILED', { error: 'EndpointFailedError' });
    clock += 600_000;
    stepFunctions.redrive(arn);

    // Act
    const whileRedriven = await runs.runState('nightly-1');
    clock += 1_800_000;
    stepFunctions.end(arn, 'ABORTED');
    const afterwards = await runs.runState('nightly-1');

    // Assert
    served.restore();
    expect(whileRedriven).toEqual({ liveIn: ['optimization'], found: true });
    expect(afterwards).toEqual({ liveIn: [], found: true, endedEpochMs: clock });
  });

  it('asks only the state machines it was given', async () => {
    // Prepare
    const optimizationOnly = new SfnRunActivity({
      client: new SFNClient({ region: 'us-east-1' }),
      stateMachineArns: { optimization: OPTIMIZATION_ARN },
    });
    sfn.on(DescribeExecutionCommand).rejects(notFound());

    // Act
    await optimizationOnly.runState('nightly-1');

    // Assert
    expect(describes()).toEqual([{ executionArn: OPTIMIZATION_EXECUTION }]);
  });

  it('asks nothing for a run-id tag that no execution name could match', async () => {
    // Act
    const state = await runs.runState('not a run id');

    // Assert
    expect(state).toEqual({ liveIn: [], found: false });
    expect(describes()).toEqual([]);
  });

  it('fails with TransientServiceError when Step Functions throttles', async () => {
    // Prepare
    sfn
      .on(DescribeExecutionCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    // Act
    const asking = runs.runState('nightly-1');

    // Assert
    await expect(asking).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('fails with the service error when access is denied', async () => {
    // Prepare
    const denied = Object.assign(new Error('not authorized to perform: states:DescribeExecution'), {
      name: 'AccessDeniedException',
    });
    sfn.on(DescribeExecutionCommand).rejects(denied);

    // Act
    const asking = runs.runState('nightly-1');

    // Assert
    await expect(asking).rejects.toBe(denied);
  });
});

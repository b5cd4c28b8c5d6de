import {
  ExecutionAlreadyExists,
  ExecutionLimitExceeded,
  SFNClient,
  SFNServiceException,
  StartExecutionCommand,
  StateMachineDoesNotExist,
} from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { SfnRunStarter } from '../../../lambdas/adapters/sfn-run-starter.js';
import { formatViolation, validateCommand } from '../../conformance/request-validator.js';

const OPTIMIZATION_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const ASYNC_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:AsyncInference';
const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly-cpu';
const START = new Date('2026-11-24T10:00:00.250Z');
const sfn = mockClient(SFNClient);
const starter = new SfnRunStarter({
  client: new SFNClient({ region: 'us-east-1' }),
  stateMachineArns: { optimization: OPTIMIZATION_ARN, 'async-inference': ASYNC_ARN },
});
const run = { workflow: 'optimization', name: 'nightly-cpu', input: { sla: { p95Ms: 50 } } } as const;

describe('SfnRunStarter', () => {
  beforeEach(() => {
    sfn.reset();
  });

  it('starts the workflow’s state machine, named after the run id, with the input as JSON', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXECUTION_ARN, startDate: START });

    // Act
    const outcome = await starter.start(run);

    // Assert
    expect(outcome).toEqual({ status: 'started', executionArn: EXECUTION_ARN, startDate: START });
    const calls = sfn.commandCalls(StartExecutionCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      { stateMachineArn: OPTIMIZATION_ARN, name: 'nightly-cpu', input: '{"sla":{"p95Ms":50}}' },
    ]);
    expect(calls.flatMap((call) => validateCommand(call.args[0] as never)).map(formatViolation)).toEqual([]);
  });

  it('starts async runs on the async-inference state machine', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXECUTION_ARN, startDate: START });

    // Act
    await starter.start({ ...run, workflow: 'async-inference' });

    // Assert
    expect(sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input.stateMachineArn).toBe(ASYNC_ARN);
  });

  it('reports a taken name with Step Functions’ words', async () => {
    // Prepare
    sfn
      .on(StartExecutionCommand)
      .rejects(
        new ExecutionAlreadyExists({ message: 'Execution Already Exists: nightly-cpu', $metadata: {} }),
      );

    // Act
    const outcome = await starter.start(run);

    // Assert
    expect(outcome).toEqual({
      status: 'name-taken',
      message: 'ExecutionAlreadyExists: Execution Already Exists: nightly-cpu',
    });
  });

  it('reports the open-executions quota as throttling, to retry later', async () => {
    // Prepare
    sfn
      .on(StartExecutionCommand)
      .rejects(
        new ExecutionLimitExceeded({ message: 'Maximum number of running executions', $metadata: {} }),
      );

    // Act
    const outcome = await starter.start(run);

    // Assert
    expect(outcome).toEqual({
      status: 'throttled',
      message: 'ExecutionLimitExceeded: Maximum number of running executions',
    });
  });

  it('reports a 5xx as unavailable', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).rejects(
      new SFNServiceException({
        name: 'InternalFailure',
        $fault: 'server',
        message: 'We encountered an internal error',
        $metadata: { httpStatusCode: 500 },
      }),
    );

    // Act
    const outcome = await starter.start(run);

    // Assert
    expect(outcome).toEqual({
      status: 'unavailable',
      message: 'InternalFailure: We encountered an internal error',
    });
  });

  it('reports a missing state machine as refused: the deployment is wrong, not the request', async () => {
    // Prepare
    sfn
      .on(StartExecutionCommand)
      .rejects(new StateMachineDoesNotExist({ message: 'State Machine Does Not Exist', $metadata: {} }));

    // Act
    const outcome = await starter.start(run);

    // Assert
    expect(outcome).toEqual({
      status: 'refused',
      error: 'StateMachineDoesNotExist',
      message: 'State Machine Does Not Exist',
    });
  });

  it('refuses a workflow deployed without the API knowing its state machine, calling nothing', async () => {
    // Prepare
    const optimizationOnly = new SfnRunStarter({
      client: new SFNClient({ region: 'us-east-1' }),
      stateMachineArns: { optimization: OPTIMIZATION_ARN },
    });

    // Act
    const outcome = await optimizationOnly.start({ ...run, workflow: 'async-inference' });

    // Assert
    expect(outcome).toEqual({
      status: 'refused',
      error: 'WorkflowNotDeployed',
      message:
        'the async-inference workflow is not deployed with this API (its state machine ARN is not set)',
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toEqual([]);
  });
});

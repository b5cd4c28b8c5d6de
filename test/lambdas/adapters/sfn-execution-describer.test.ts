import { DescribeExecutionCommand, ExecutionDoesNotExist, SFNClient } from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { SfnExecutionDescriber } from '../../../lambdas/adapters/sfn-execution-describer.js';

const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:nightly-1';
const START = new Date('2026-11-22T02:00:00.000Z');
const STOP = new Date('2026-11-22T03:12:05.000Z');
const sfn = mockClient(SFNClient);
const describer = new SfnExecutionDescriber({ client: new SFNClient({ region: 'us-east-1' }) });

describe('SfnExecutionDescriber', () => {
  beforeEach(() => {
    sfn.reset();
  });

  it('describes the execution: status, dates, output, error and cause, without the input', async () => {
    // Prepare
    sfn.on(DescribeExecutionCommand).resolves({
      executionArn: EXECUTION_ARN,
      stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization',
      status: 'FAILED',
      startDate: START,
      stopDate: STOP,
      input: '{"model":{"artifactUri":"s3://private/model.tar.gz"}}',
      error: 'EndpointFailedError',
      cause: 'capacity',
    });

    // Act
    const description = await describer.describe(EXECUTION_ARN);

    // Assert
    expect(description).toEqual({
      status: 'FAILED',
      startEpochMs: START.getTime(),
      stopEpochMs: STOP.getTime(),
      error: 'EndpointFailedError',
      cause: 'capacity',
    });
    expect(sfn.commandCalls(DescribeExecutionCommand).map((call) => call.args[0].input)).toEqual([
      { executionArn: EXECUTION_ARN },
    ]);
  });

  it('keeps the output of a succeeded execution', async () => {
    // Prepare
    sfn.on(DescribeExecutionCommand).resolves({
      executionArn: EXECUTION_ARN,
      stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization',
      status: 'SUCCEEDED',
      startDate: START,
      stopDate: STOP,
      output: '{"runId":"nightly-1"}',
    });

    // Act
    const description = await describer.describe(EXECUTION_ARN);

    // Assert
    expect(description.output).toBe('{"runId":"nightly-1"}');
  });

  it('keeps the redrive count and status of an execution redriven after it failed', async () => {
    // Prepare
    sfn.on(DescribeExecutionCommand).resolves({
      executionArn: EXECUTION_ARN,
      stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization',
      status: 'RUNNING',
      startDate: START,
      redriveCount: 1,
      redriveDate: STOP,
      redriveStatus: 'NOT_REDRIVABLE',
      redriveStatusReason: 'Execution is RUNNING and cannot be redriven',
    });

    // Act
    const description = await describer.describe(EXECUTION_ARN);

    // Assert
    expect(description).toEqual({
      status: 'RUNNING',
      startEpochMs: START.getTime(),
      redriveCount: 1,
      redriveStatus: 'NOT_REDRIVABLE',
    });
  });

  it('fails with TransientServiceError when Step Functions throttles', async () => {
    // Prepare
    sfn
      .on(DescribeExecutionCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    // Act
    const failure = describer.describe(EXECUTION_ARN);

    // Assert
    await expect(failure).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('fails with the service error when the execution does not exist', async () => {
    // Prepare
    sfn
      .on(DescribeExecutionCommand)
      .rejects(new ExecutionDoesNotExist({ message: 'Execution Does Not Exist', $metadata: {} }));

    // Act
    const failure = describer.describe(EXECUTION_ARN);

    // Assert
    await expect(failure).rejects.toBeInstanceOf(ExecutionDoesNotExist);
  });
});

import {
  InvalidOutput,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { SfnTaskResumer } from '../../../lambdas/adapters/sfn-task-resumer.js';

const TOKEN = `AQCEAAAAKgAAAA${'k'.repeat(900)}`;
const sfn = mockClient(SFNClient);
const resumer = new SfnTaskResumer({ client: new SFNClient({ region: 'us-east-1' }) });

describe('SfnTaskResumer', () => {
  beforeEach(() => {
    sfn.reset();
  });

  it('sends the output as JSON with the token', async () => {
    // Arrange
    sfn.on(SendTaskSuccessCommand).resolves({});

    // Act
    const outcome = await resumer.sendTaskSuccess(TOKEN, {
      inferenceId: 'i-1',
      outputLocation: 's3://b/o.out',
    });

    // Assert
    expect(outcome).toEqual({ status: 'delivered' });
    expect(sfn.commandCalls(SendTaskSuccessCommand)[0]?.args[0].input).toEqual({
      taskToken: TOKEN,
      output: '{"inferenceId":"i-1","outputLocation":"s3://b/o.out"}',
    });
  });

  it('sends the literal error name and the cause', async () => {
    sfn.on(SendTaskFailureCommand).resolves({});

    await resumer.sendTaskFailure(TOKEN, 'InferenceFailedError', '{"failureReason":"500 from model"}');

    expect(sfn.commandCalls(SendTaskFailureCommand)[0]?.args[0].input).toEqual({
      taskToken: TOKEN,
      error: 'InferenceFailedError',
      cause: '{"failureReason":"500 from model"}',
    });
  });

  it('cuts the cause to Step Functions limit of 32,768 characters', async () => {
    sfn.on(SendTaskFailureCommand).resolves({});

    await resumer.sendTaskFailure(TOKEN, 'InferenceFailedError', 'c'.repeat(40_000));

    expect(sfn.commandCalls(SendTaskFailureCommand)[0]?.args[0].input.cause).toHaveLength(32_768);
  });

  it.each([
    ['TaskTimedOut', new TaskTimedOut({ message: 'Task Timed Out', $metadata: {} })],
    ['TaskDoesNotExist', new TaskDoesNotExist({ message: 'Task does not exist', $metadata: {} })],
    ['InvalidToken', new InvalidToken({ message: `Invalid Token: '${TOKEN}'`, $metadata: {} })],
  ])('reports %s as a task that no longer waits', async (reason, error) => {
    sfn.on(SendTaskSuccessCommand).rejects(error);

    await expect(resumer.sendTaskSuccess(TOKEN, {})).resolves.toEqual({ status: 'task-gone', reason });
  });

  it('tells whether a task still waits with a heartbeat', async () => {
    sfn
      .on(SendTaskHeartbeatCommand)
      .rejectsOnce(new TaskTimedOut({ message: 'Task Timed Out', $metadata: {} }));

    const outcome = await resumer.sendTaskHeartbeat(TOKEN);

    expect(outcome).toEqual({ status: 'task-gone', reason: 'TaskTimedOut' });
    expect(sfn.commandCalls(SendTaskHeartbeatCommand)[0]?.args[0].input).toEqual({ taskToken: TOKEN });
  });

  it('fails with TransientServiceError when Step Functions throttles', async () => {
    sfn
      .on(SendTaskSuccessCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    await expect(resumer.sendTaskSuccess(TOKEN, {})).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('fails with the service error, its name kept and the token removed from its message', async () => {
    sfn
      .on(SendTaskSuccessCommand)
      .rejects(new InvalidOutput({ message: `Output too large for task '${TOKEN}'`, $metadata: {} }));

    const failure = await resumer.sendTaskSuccess(TOKEN, {}).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(InvalidOutput);
    expect(failure).toMatchObject({
      name: 'InvalidOutput',
      message: "Output too large for task '<task token>'",
    });
  });
});

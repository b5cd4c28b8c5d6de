import {
  ExecutionAlreadyExists,
  InvalidExecutionInput,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { SfnExecutionStarter } from '../../../lambdas/adapters/sfn-execution-starter.js';

const STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:Optimization';
const EXECUTION_ARN = 'arn:aws:states:us-east-1:123456789012:execution:Optimization:approved-churn-v7';
const sfn = mockClient(SFNClient);
const starter = new SfnExecutionStarter({
  client: new SFNClient({ region: 'us-east-1' }),
  stateMachineArn: STATE_MACHINE_ARN,
});

describe('SfnExecutionStarter', () => {
  beforeEach(() => {
    sfn.reset();
  });

  it('starts an execution of its state machine with the name and the input as JSON', async () => {
    // Prepare
    sfn.on(StartExecutionCommand).resolves({ executionArn: EXECUTION_ARN, startDate: new Date() });

    // Act
    const outcome = await starter.start({
      name: 'approved-churn-v7',
      input: { model: { artifactUri: 's3://mso-artifacts/models/churn/model.tar.gz' } },
    });

    // Assert
    expect(outcome).toEqual({ status: 'started', executionArn: EXECUTION_ARN });
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input)).toEqual([
      {
        stateMachineArn: STATE_MACHINE_ARN,
        name: 'approved-churn-v7',
        input: '{"model":{"artifactUri":"s3://mso-artifacts/models/churn/model.tar.gz"}}',
      },
    ]);
  });

  it('reports a taken execution name as already started', async () => {
    // Prepare
    sfn
      .on(StartExecutionCommand)
      .rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} }));

    // Act
    const outcome = await starter.start({ name: 'approved-churn-v7', input: {} });

    // Assert
    expect(outcome).toEqual({ status: 'already-started' });
  });

  it('fails with TransientServiceError when Step Functions throttles', async () => {
    // Prepare
    sfn
      .on(StartExecutionCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    // Act
    const failure = starter.start({ name: 'approved-churn-v7', input: {} });

    // Assert
    await expect(failure).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('fails with the service error, its name kept, when the input is refused', async () => {
    // Prepare
    sfn
      .on(StartExecutionCommand)
      .rejects(new InvalidExecutionInput({ message: 'Input too large', $metadata: {} }));

    // Act
    const failure = await starter.start({ name: 'approved-churn-v7', input: {} }).catch((e: unknown) => e);

    // Assert
    expect(failure).toBeInstanceOf(InvalidExecutionInput);
  });
});

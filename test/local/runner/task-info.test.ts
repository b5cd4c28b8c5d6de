import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from '../../../local/runner/json.js';
import { describeTask } from '../../../local/runner/task-info.js';

function describeState(state: JsonObject) {
  return describeTask({ name: 'Step', state, scope: [] }, {});
}

describe('describeTask', () => {
  it('reads a Lambda Invoke integration with its function name and Lambda Invoke call style', () => {
    // Prepare
    const state = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: {
        FunctionName: 'arn:aws:lambda:us-east-1:123456789012:function:deploy:live',
        'Payload.$': '$',
      },
      TimeoutSeconds: 300,
    };

    // Act
    const task = describeState(state);

    // Assert
    expect(task).toMatchObject({
      info: {
        integration: 'lambda',
        service: 'lambda',
        action: 'invoke',
        functionName: 'deploy',
        waitForTaskToken: false,
      },
      callStyle: 'lambda-invoke',
      timeoutSeconds: 300,
    });
  });

  it('reads a function ARN as Resource as a Lambda task returning the raw result', () => {
    // Prepare
    const state = {
      Type: 'Task',
      Resource: 'arn:aws:lambda:local:000000000000:function:Worker',
      HeartbeatSeconds: 30,
    };

    // Act
    const task = describeState(state);

    // Assert
    expect(task).toMatchObject({
      info: { integration: 'lambda', functionName: 'Worker' },
      callStyle: 'lambda-function',
      heartbeatSeconds: 30,
    });
  });

  it('reads an aws-sdk integration with waitForTaskToken', () => {
    // Prepare
    const state = {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:sqs:sendMessage.waitForTaskToken',
      Parameters: { 'MessageBody.$': '$$.Task.Token' },
    };

    // Act
    const task = describeState(state);

    // Assert
    expect(task.info).toMatchObject({
      integration: 'aws-sdk',
      service: 'sqs',
      action: 'sendMessage',
      waitForTaskToken: true,
    });
  });

  it('reads an optimized integration with .sync as other', () => {
    // Prepare
    const state = { Type: 'Task', Resource: 'arn:aws:states:::states:startExecution.sync:2' };

    // Act
    const task = describeState(state);

    // Assert
    expect(task.info).toMatchObject({
      integration: 'other',
      service: 'states',
      action: 'startExecution',
      waitForTaskToken: false,
    });
  });

  it('fails when a .waitForTaskToken task does not pass $$.Task.Token', () => {
    // Prepare
    const state = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: { FunctionName: 'fn', Payload: {} },
    };

    // Act
    const describe = () => describeState(state);

    // Assert
    expect(describe).toThrow(
      /Task "Step": uses .waitForTaskToken but its Parameters do not pass \$\$.Task.Token/,
    );
  });

  it('fails when the function to invoke is chosen at run time', () => {
    // Prepare
    const state = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { 'FunctionName.$': '$.fn' },
    };

    // Act
    const describe = () => describeState(state);

    // Assert
    expect(describe).toThrow(
      /expected Parameters.FunctionName to be a static function name or ARN, got "\$.fn"/,
    );
  });

  it('fails when a Lambda task is invoked asynchronously (InvocationType Event)', () => {
    // Prepare
    const state = {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'fn', InvocationType: 'Event' },
    };

    // Act
    const describe = () => describeState(state);

    // Assert
    expect(describe).toThrow(/InvocationType "Event" is not supported locally/);
  });
});

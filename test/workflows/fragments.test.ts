import { describe, expect, it } from '@jest/globals';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { guardedRun } from '../../workflows/guarded-run.js';
import { lambdaStep } from '../../workflows/lambda-step.js';
import { pollLoop } from '../../workflows/poll-loop.js';
import { TEST_ENV } from '../infra/app.js';

function scope() {
  const stack = new Stack(new App(), 'Fragments', { env: TEST_ENV });
  const fn = (name: string) =>
    LambdaFunction.fromFunctionArn(
      stack,
      `${name}Function`,
      `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
    );
  const task = (name: string) =>
    lambdaStep(stack, name, fn(name), { payload: '$', timeout: Duration.minutes(2) });
  return { stack, fn, task };
}

describe('pollLoop', () => {
  it('waits again on every outcome but the one it waits `until`', () => {
    // Prepare
    const { stack, task } = scope();
    const ready = new sfn.Pass(stack, 'Ready');

    // Act
    const loop = pollLoop(stack, {
      waitName: 'Wait for thing',
      waitSecondsPath: '$.thing.waitSeconds',
      check: task('Check thing'),
      choiceName: 'Thing ready?',
      exit: { until: sfn.Condition.stringEquals('$.thing.status', 'READY'), then: ready },
    });

    // Assert
    expect(stack.resolve(loop.wait.toStateJson())).toEqual({
      Type: 'Wait',
      SecondsPath: '$.thing.waitSeconds',
      Next: 'Check thing',
    });
    expect(stack.resolve(loop.choice.toStateJson())).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.thing.status', StringEquals: 'READY', Next: 'Ready' }],
      Default: 'Wait for thing',
    });
  });

  it('waits again only on the outcome it polls `whilst`', () => {
    // Prepare
    const { stack, task } = scope();
    const ended = new sfn.Pass(stack, 'Ended');

    // Act
    const loop = pollLoop(stack, {
      waitName: 'Wait for job',
      waitSecondsPath: '$.job.waitSeconds',
      check: task('Check job'),
      choiceName: 'Job finished?',
      exit: { whilst: sfn.Condition.stringEquals('$.job.status', 'IN_PROGRESS'), then: ended },
    });

    // Assert
    expect(stack.resolve(loop.choice.toStateJson())).toEqual({
      Type: 'Choice',
      Choices: [{ Variable: '$.job.status', StringEquals: 'IN_PROGRESS', Next: 'Wait for job' }],
      Default: 'Ended',
    });
  });
});

describe('guardedRun', () => {
  const STATES = {
    runRefused: 'Run refused',
    cleanUpAfterFailure: 'Clean up after failure',
    runFailed: 'Run failed',
    runSucceeded: 'Run succeeded',
  };

  function build() {
    const { stack, fn, task } = scope();
    const validate = task('Validate');
    const run = new sfn.Pass(stack, 'Work', { parameters: { 'summary.$': '$' } });
    guardedRun(stack, {
      states: STATES,
      validate,
      refusedErrors: ['InvalidRunInputError'],
      refusedComment: 'Invalid input: nothing was created',
      runName: 'Run',
      run,
      cleanUp: fn('clean-up'),
    });
    const parallel = stack.node.findChild('Run');
    if (!(parallel instanceof sfn.Parallel)) throw new Error('expected the Parallel state "Run"');
    return { stack, validate, parallel };
  }

  it('refuses the run on the input errors, before anything exists', () => {
    // Prepare
    const { stack, validate } = build();

    // Act
    const state = stack.resolve(validate.toStateJson()) as { Catch: unknown; Next: unknown };

    // Assert
    expect(state.Catch).toEqual([
      { ErrorEquals: ['InvalidRunInputError'], ResultPath: '$.error', Next: 'Run refused' },
    ]);
    expect(state.Next).toBe('Run');
  });

  it('sends every failure of the run to clean-up with the error kept, and succeeds with the summary', () => {
    // Prepare
    const { stack, parallel } = build();

    // Act
    const state = stack.resolve(parallel.toStateJson()) as Record<string, unknown>;

    // Assert
    expect(state).toMatchObject({
      Type: 'Parallel',
      ResultSelector: { 'summary.$': '$[0].summary' },
      Next: 'Run succeeded',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Clean up after failure' }],
    });
  });
});

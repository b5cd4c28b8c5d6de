/* eslint-disable @typescript-eslint/require-await -- the local handlers stand in for async step handlers */
import { describe, expect, it } from '@jest/globals';
import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { EndpointFailedError, ErrorNames, TransientServiceError } from '../../../core/contracts/errors.js';
import type { RunnerEvent, TaskContext } from '../../../local/runner/index.js';
import { runStateMachine, TaskTokenBroker, UnsupportedDefinitionError } from '../../../local/runner/index.js';
import { delay, newStack, resolverOf, stepFunction, synthStateMachine } from './cdk-fixtures.js';

function enteredStates(events: RunnerEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'StateEntered' ? [event.stateName] : []));
}

describe('runStateMachine on a synthesized workflow', () => {
  it('runs the happy path: Lambda result through ResultSelector, Wait, Choice, Map and States.Format', async () => {
    // Prepare
    const stack = newStack();
    const plan = new tasks.LambdaInvoke(stack, 'Validate and plan', {
      lambdaFunction: stepFunction(stack, 'validate-and-plan'),
      resultSelector: { 'candidates.$': '$.Payload.candidates', 'pauseSeconds.$': '$.Payload.pauseSeconds' },
      resultPath: '$.plan',
    });
    const pause = new sfn.Wait(stack, 'Pause', { time: sfn.WaitTime.secondsPath('$.plan.pauseSeconds') });
    const report = new sfn.Pass(stack, 'Report', {
      parameters: {
        reportKey: sfn.JsonPath.format('runs/{}/report.json', sfn.JsonPath.executionName),
        results: sfn.JsonPath.objectAt('$.results'),
      },
    });
    const anyCandidates = new sfn.Choice(stack, 'Any candidates?')
      .when(
        sfn.Condition.and(
          sfn.Condition.isPresent('$.plan.candidates[0]'),
          sfn.Condition.numberGreaterThan('$.budgetUsd', 0),
        ),
        new sfn.Map(stack, 'Each candidate', {
          itemsPath: '$.plan.candidates',
          itemSelector: {
            'candidate.$': '$$.Map.Item.Value',
            'index.$': '$$.Map.Item.Index',
            'runId.$': '$$.Execution.Name',
          },
          resultPath: '$.results',
        })
          .itemProcessor(
            new tasks.LambdaInvoke(stack, 'Benchmark candidate', {
              lambdaFunction: stepFunction(stack, 'benchmark-candidate'),
              payloadResponseOnly: true,
            }),
          )
          .next(report),
      )
      .otherwise(new sfn.Fail(stack, 'Nothing to benchmark', { error: 'NoCandidates' }));
    const machine = synthStateMachine(stack, plan.next(pause).next(anyCandidates));
    const events: RunnerEvent[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-42',
      input: { budgetUsd: 5 },
      resolveTask: resolverOf({
        'validate-and-plan': async () => ({
          candidates: ['ml.c5.large', 'ml.g4dn.xlarge'],
          pauseSeconds: 3600,
        }),
        'benchmark-candidate': async (input) => ({ benchmarked: input }),
      }),
      onEvent: (event) => events.push(event),
    });

    // Assert
    expect(result).toEqual({
      status: 'SUCCEEDED',
      output: {
        reportKey: 'runs/run-42/report.json',
        results: [
          { benchmarked: { candidate: 'ml.c5.large', index: 0, runId: 'run-42' } },
          { benchmarked: { candidate: 'ml.g4dn.xlarge', index: 1, runId: 'run-42' } },
        ],
      },
    });
    const pauseEvents = events.filter((event) => 'stateName' in event && event.stateName === 'Pause');
    const [entered, exited] = pauseEvents.map((event) => event.timestamp);
    expect((exited ?? Infinity) - (entered ?? 0)).toBeLessThan(1000); // the one-hour Wait took ~10 ms
    expect(enteredStates(events).filter((name) => name !== 'Benchmark candidate')).toEqual([
      'Validate and plan',
      'Pause',
      'Any candidates?',
      'Each candidate',
      'Report',
    ]);
  });

  it('takes the Choice default when the NumericGreaterThan rule does not match', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new sfn.Choice(stack, 'Within budget?')
        .when(sfn.Condition.numberGreaterThan('$.budgetUsd', 0), new sfn.Succeed(stack, 'Go'))
        .otherwise(new sfn.Fail(stack, 'No budget', { error: 'BudgetExceededError', cause: 'budget is 0' })),
    );

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      executionName: 'run-1',
      input: { budgetUsd: 0 },
      resolveTask: resolverOf({}),
    });

    // Assert
    expect(result).toEqual({ status: 'FAILED', error: 'BudgetExceededError', cause: 'budget is 0' });
  });

  it('gives the Lambda Invoke response shape (Payload, StatusCode) to the state', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new tasks.LambdaInvoke(stack, 'Deploy candidate', {
        lambdaFunction: stepFunction(stack, 'deploy-candidate'),
        payload: sfn.TaskInput.fromObject({ 'endpointName.$': '$.name' }),
      }),
    );
    const received: unknown[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { name: 'ep-1' },
      resolveTask: resolverOf({
        'deploy-candidate': async (payload) => {
          received.push(payload);
          return { endpointName: 'ep-1', status: 'Creating' };
        },
      }),
    });

    // Assert
    expect(received).toEqual([{ endpointName: 'ep-1' }]);
    expect(result).toMatchObject({
      status: 'SUCCEEDED',
      output: {
        ExecutedVersion: '$LATEST',
        Payload: { endpointName: 'ep-1', status: 'Creating' },
        StatusCode: 200,
        SdkHttpMetadata: { HttpStatusCode: 200 },
      },
    });
  });

  it('gives the execution context: $$.Execution.Name/Id, $$.StateMachine.Name', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new sfn.Pass(stack, 'Context', {
        parameters: {
          name: sfn.JsonPath.executionName,
          id: sfn.JsonPath.executionId,
          stateMachine: sfn.JsonPath.stateMachineName,
          input: sfn.JsonPath.executionInput,
        },
      }),
    );

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      executionName: 'run-7',
      stateMachineName: 'Optimization',
      input: { model: 'cnn' },
      resolveTask: resolverOf({}),
    });

    // Assert
    expect(result).toEqual({
      status: 'SUCCEEDED',
      output: {
        name: 'run-7',
        id: 'arn:aws:states:local:000000000000:execution:Optimization:run-7',
        stateMachine: 'Optimization',
        input: { model: 'cnn' },
      },
    });
  });

  it('evaluates the intrinsic functions States.Format, MathAdd, ArrayRange, JsonToString and UUID', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new sfn.Pass(stack, 'Intrinsics', {
        parameters: {
          name: sfn.JsonPath.format('{}-{}', sfn.JsonPath.executionName, sfn.JsonPath.stringAt('$.id')),
          next: sfn.JsonPath.mathAdd(sfn.JsonPath.numberAt('$.n'), 1),
          loads: sfn.JsonPath.arrayRange(10, 40, 10),
          json: sfn.JsonPath.jsonToString(sfn.JsonPath.objectAt('$.config')),
          uuid: sfn.JsonPath.uuid(),
        },
      }),
    );

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      executionName: 'run-3',
      input: { id: 'c1', n: 41, config: { threads: 2 } },
      resolveTask: resolverOf({}),
    });

    // Assert
    expect(result).toEqual({
      status: 'SUCCEEDED',
      output: {
        name: 'run-3-c1',
        next: 42,
        loads: [10, 20, 30, 40],
        json: '{"threads":2}',
        uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      },
    });
  });
});

describe('runStateMachine error handling', () => {
  function catchingMachine(errors: string[]) {
    const stack = newStack();
    const cleanUp = new tasks.LambdaInvoke(stack, 'Clean up', {
      lambdaFunction: stepFunction(stack, 'clean-up'),
      payloadResponseOnly: true,
    });
    const deploy = new tasks.LambdaInvoke(stack, 'Deploy candidate', {
      lambdaFunction: stepFunction(stack, 'deploy-candidate'),
      resultPath: sfn.JsonPath.DISCARD,
    }).addCatch(cleanUp, { errors, resultPath: '$.error' });
    return synthStateMachine(stack, deploy);
  }

  it('catches a named error into $.error with a Lambda-style Cause, keeping the input', async () => {
    // Prepare
    const machine = catchingMachine([ErrorNames.endpointFailed]);
    const cleanUpInputs: unknown[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { endpointName: 'ep-1' },
      resolveTask: resolverOf({
        'deploy-candidate': () => Promise.reject(new EndpointFailedError('endpoint ep-1 is Failed')),
        'clean-up': async (input) => {
          cleanUpInputs.push(input);
          return { cleaned: true };
        },
      }),
    });

    // Assert
    expect(result).toEqual({ status: 'SUCCEEDED', output: { cleaned: true } });
    expect(cleanUpInputs).toEqual([
      { endpointName: 'ep-1', error: { Error: 'EndpointFailedError', Cause: expect.any(String) } },
    ]);
    const cause = JSON.parse((cleanUpInputs[0] as { error: { Cause: string } }).error.Cause);
    expect(cause).toMatchObject({
      errorType: 'EndpointFailedError',
      errorMessage: 'endpoint ep-1 is Failed',
    });
    expect(cause.trace[0]).toBe('EndpointFailedError: endpoint ep-1 is Failed');
  });

  it('matches a named error with States.TaskFailed', async () => {
    // Prepare
    const machine = catchingMachine(['States.TaskFailed']);

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      resolveTask: resolverOf({
        'deploy-candidate': () => Promise.reject(new EndpointFailedError('failed')),
        'clean-up': async (input) => input,
      }),
    });

    // Assert
    expect(result).toMatchObject({
      status: 'SUCCEEDED',
      output: { error: { Error: 'EndpointFailedError' } },
    });
  });

  it('fails the execution with the error name when no Catch matches', async () => {
    // Prepare
    const machine = catchingMachine([ErrorNames.quotaExceeded]);

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      resolveTask: resolverOf({
        'deploy-candidate': () => Promise.reject(new EndpointFailedError('failed')),
        'clean-up': async (input) => input,
      }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'FAILED', error: 'EndpointFailedError' });
  });

  it('retries a named transient error, then succeeds', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new tasks.LambdaInvoke(stack, 'Describe endpoint', {
        lambdaFunction: stepFunction(stack, 'describe-endpoint'),
        payloadResponseOnly: true,
        retryOnServiceExceptions: false,
      }).addRetry({ errors: [ErrorNames.transientService], maxAttempts: 3, interval: Duration.seconds(30) }),
    );
    let calls = 0;
    const events: RunnerEvent[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      resolveTask: resolverOf({
        'describe-endpoint': async () => {
          calls += 1;
          if (calls < 3) throw new TransientServiceError('ThrottlingException');
          return { status: 'InService' };
        },
      }),
      onEvent: (event) => events.push(event),
    });

    // Assert
    expect(result).toEqual({ status: 'SUCCEEDED', output: { status: 'InService' } });
    expect(calls).toBe(3);
    expect(events.filter((event) => event.type === 'StateRetried')).toHaveLength(2);
  });

  it('does not retry an error the Retry does not name', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new tasks.LambdaInvoke(stack, 'Describe endpoint', {
        lambdaFunction: stepFunction(stack, 'describe-endpoint'),
        retryOnServiceExceptions: false,
      }).addRetry({ errors: [ErrorNames.transientService] }),
    );
    let calls = 0;

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      resolveTask: resolverOf({
        'describe-endpoint': async () => {
          calls += 1;
          throw new EndpointFailedError('failed');
        },
      }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'FAILED', error: 'EndpointFailedError' });
    expect(calls).toBe(1);
  });

  it('fails when a task returns more than 256 KiB, even with a Catch on States.ALL', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new tasks.LambdaInvoke(stack, 'Load test', {
        lambdaFunction: stepFunction(stack, 'load-test'),
      }).addCatch(new sfn.Pass(stack, 'Caught'), { errors: ['States.ALL'], resultPath: '$.error' }),
    );

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      resolveTask: resolverOf({ 'load-test': async () => ({ samples: 'x'.repeat(300 * 1024) }) }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
  });
});

describe('runStateMachine Map', () => {
  it('runs at most MaxConcurrency iterations at once and keeps the item order', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new sfn.Map(stack, 'Each candidate', { itemsPath: '$.candidates', maxConcurrency: 2 }).itemProcessor(
        new tasks.LambdaInvoke(stack, 'Benchmark candidate', {
          lambdaFunction: stepFunction(stack, 'benchmark-candidate'),
          payloadResponseOnly: true,
        }),
      ),
    );
    let inFlight = 0;
    let maxInFlight = 0;
    const iterations: number[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { candidates: [1, 2, 3, 4, 5, 6] },
      resolveTask: resolverOf({
        'benchmark-candidate': async (input) => {
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await delay(15);
          inFlight -= 1;
          return (input as number) * 10;
        },
      }),
      onEvent: (event) => {
        if (event.type === 'MapIterationSucceeded') iterations.push(event.index);
      },
    });

    // Assert
    expect(result).toEqual({ status: 'SUCCEEDED', output: [10, 20, 30, 40, 50, 60] });
    expect(maxInFlight).toBe(2);
    expect([...iterations].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('runStateMachine polling loop', () => {
  it('polls sagemaker:describeEndpoint through a Wait (SecondsPath) and Choice loop until InService', async () => {
    // Prepare
    const stack = newStack();
    const describe = new tasks.CallAwsService(stack, 'Describe endpoint', {
      service: 'sagemaker',
      action: 'describeEndpoint',
      parameters: { EndpointName: sfn.JsonPath.stringAt('$.endpointName') },
      iamResources: ['*'],
      resultSelector: { 'status.$': '$.EndpointStatus' },
      resultPath: '$.endpoint',
    });
    const wait = new sfn.Wait(stack, 'Wait before polling', {
      time: sfn.WaitTime.secondsPath('$.pollSeconds'),
    });
    const machine = synthStateMachine(
      stack,
      wait
        .next(describe)
        .next(
          new sfn.Choice(stack, 'Endpoint in service?')
            .when(
              sfn.Condition.stringEquals('$.endpoint.status', 'InService'),
              new sfn.Succeed(stack, 'Ready'),
            )
            .otherwise(wait),
        ),
    );
    const statuses = ['Creating', 'Creating', 'InService'];
    const calls: unknown[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      executionName: 'run-1',
      input: { endpointName: 'run-1-c0', pollSeconds: 60 },
      resolveTask: resolverOf({
        'sagemaker:describeEndpoint': async (parameters) => {
          calls.push(parameters);
          return { EndpointName: 'run-1-c0', EndpointStatus: statuses[calls.length - 1] };
        },
      }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { endpoint: { status: 'InService' } } });
    expect(calls).toEqual([
      { EndpointName: 'run-1-c0' },
      { EndpointName: 'run-1-c0' },
      { EndpointName: 'run-1-c0' },
    ]);
  });

  it('asks the resolver for an aws-sdk task with its service and action', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new tasks.CallAwsService(stack, 'Describe endpoint', {
        service: 'sagemaker',
        action: 'describeEndpoint',
        parameters: { EndpointName: sfn.JsonPath.stringAt('$.endpointName') },
        iamResources: ['*'],
      }),
    );
    const asked: unknown[] = [];

    // Act
    await runStateMachine({
      definition: machine.definition,
      executionName: 'run-1',
      input: { endpointName: 'ep' },
      resolveTask: (info) => {
        asked.push(info);
        return async () => ({});
      },
    });

    // Assert
    expect(asked).toEqual([
      {
        stateName: 'Describe endpoint',
        resource: 'arn:aws:states:::aws-sdk:sagemaker:describeEndpoint',
        integration: 'aws-sdk',
        service: 'sagemaker',
        action: 'describeEndpoint',
        waitForTaskToken: false,
        parameters: { 'EndpointName.$': '$.endpointName' },
      },
    ]);
  });
});

describe('runStateMachine abort', () => {
  it('stops on the signal with status ABORTED and aborts the running handler', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      new tasks.LambdaInvoke(stack, 'Load test', { lambdaFunction: stepFunction(stack, 'load-test') }),
    );
    const controller = new AbortController();
    let handlerSignal: AbortSignal | undefined;

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      signal: controller.signal,
      resolveTask: resolverOf({
        'load-test': (_input, context: TaskContext) => {
          handlerSignal = context.signal;
          setTimeout(() => {
            controller.abort();
          }, 10);
          return new Promise(() => undefined);
        },
      }),
    });

    // Assert
    expect(result).toEqual({ status: 'ABORTED' });
    expect(handlerSignal?.aborted).toBe(true);
  });
});

describe('runStateMachine execution limits', () => {
  function slowMachine(props: Partial<sfn.StateMachineProps> = {}) {
    const stack = newStack();
    return synthStateMachine(
      stack,
      new tasks.LambdaInvoke(stack, 'Load test', { lambdaFunction: stepFunction(stack, 'load-test') }),
      props,
    );
  }

  it("times out after the state machine's TimeoutSeconds (scaled), with status TIMED_OUT", async () => {
    // Prepare: 30 s × 0.002 = 60 ms locally
    const machine = slowMachine({ timeout: Duration.seconds(30) });
    const events: RunnerEvent[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      timeoutScale: 0.002,
      resolveTask: resolverOf({ 'load-test': () => new Promise(() => undefined) }),
      onEvent: (event) => events.push(event),
    });

    // Assert
    expect(result).toMatchObject({ status: 'TIMED_OUT', error: 'States.Timeout' });
    expect(events.at(-1)?.type).toBe('ExecutionTimedOut');
  });

  it('fails when onEvent throws: aborts the execution and rejects with that error', async () => {
    // Prepare
    const machine = slowMachine();
    let handlerSignal: AbortSignal | undefined;

    // Act
    const run = runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: {},
      resolveTask: resolverOf({
        'load-test': (_input, context) => {
          handlerSignal = context.signal;
          return new Promise(() => undefined);
        },
      }),
      onEvent: (event) => {
        if (event.type === 'StateEntered') throw new Error('display crashed');
      },
    });

    // Assert
    await expect(run).rejects.toThrow('display crashed');
    expect(handlerSignal?.aborted).toBe(true);
  });
});

describe('runStateMachine task tokens', () => {
  interface AsyncPayload {
    taskToken: string;
    inferenceId: string;
  }

  function asyncInferenceMachine(
    configure: (task: tasks.LambdaInvoke, stack: ReturnType<typeof newStack>) => void = () => undefined,
    props: Partial<tasks.LambdaInvokeProps> = {},
  ) {
    const stack = newStack();
    const task = new tasks.LambdaInvoke(stack, 'Invoke async and wait', {
      lambdaFunction: stepFunction(stack, 'invoke-async'),
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      payload: sfn.TaskInput.fromObject({
        taskToken: sfn.JsonPath.taskToken,
        inferenceId: sfn.JsonPath.stringAt('$.inferenceId'),
      }),
      resultPath: '$.inference',
      retryOnServiceExceptions: false,
      ...props,
    });
    configure(task, stack);
    return synthStateMachine(stack, task);
  }

  it('resumes a .waitForTaskToken task with the output of sendTaskSuccess', async () => {
    // Prepare
    const machine = asyncInferenceMachine();
    const taskTokens = new TaskTokenBroker();
    const contextTokens: (string | undefined)[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      taskTokens,
      resolveTask: resolverOf({
        'invoke-async': async (input, context) => {
          const { taskToken } = input as unknown as AsyncPayload;
          contextTokens.push(context.taskToken);
          setTimeout(
            () => void taskTokens.sendTaskSuccess(taskToken, { outputLocation: 's3://out/inf-1' }),
            5,
          );
          return { accepted: true }; // ignored: the task waits for its token
        },
      }),
    });

    // Assert
    expect(result).toEqual({
      status: 'SUCCEEDED',
      output: { inferenceId: 'inf-1', inference: { outputLocation: 's3://out/inf-1' } },
    });
    expect(contextTokens).toEqual([expect.stringMatching(/^local-task-token-/)]);
    expect(taskTokens.pendingTokens).toEqual([]);
  });

  it('fails a .waitForTaskToken task with sendTaskFailure, which a Catch matches on the error name', async () => {
    // Prepare
    const machine = asyncInferenceMachine((task, stack) =>
      task.addCatch(new sfn.Pass(stack, 'Record failure'), {
        errors: [ErrorNames.inferenceFailed],
        resultPath: '$.error',
      }),
    );
    const taskTokens = new TaskTokenBroker();

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      taskTokens,
      resolveTask: resolverOf({
        'invoke-async': async (input) => {
          const { taskToken } = input as unknown as AsyncPayload;
          setTimeout(
            () =>
              void taskTokens.sendTaskFailure(taskToken, ErrorNames.inferenceFailed, 'model returned 500'),
            5,
          );
          return {};
        },
      }),
    });

    // Assert
    expect(result).toEqual({
      status: 'SUCCEEDED',
      output: {
        inferenceId: 'inf-1',
        error: { Error: 'InferenceFailedError', Cause: 'model returned 500' },
      },
    });
  });

  it('gives every attempt a fresh token', async () => {
    // Prepare
    const machine = asyncInferenceMachine((task) =>
      task.addRetry({ errors: [ErrorNames.transientService], maxAttempts: 1 }),
    );
    const taskTokens = new TaskTokenBroker();
    const tokens: string[] = [];

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      taskTokens,
      resolveTask: resolverOf({
        'invoke-async': async (input) => {
          const { taskToken } = input as unknown as AsyncPayload;
          tokens.push(taskToken);
          setTimeout(
            () =>
              void (tokens.length === 1
                ? taskTokens.sendTaskFailure(taskToken, ErrorNames.transientService, 'throttled')
                : taskTokens.sendTaskSuccess(taskToken, 'done')),
            5,
          );
          return {};
        },
      }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { inference: 'done' } });
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).not.toBe(tokens[1]);
  });

  it('fails with States.Timeout when no heartbeat arrives within HeartbeatSeconds (scaled)', async () => {
    // Prepare: 60 s heartbeat × 0.001 = 60 ms locally
    const machine = asyncInferenceMachine(() => undefined, {
      heartbeatTimeout: sfn.Timeout.duration(Duration.seconds(60)),
    });
    const started = Date.now();

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      taskTokens: new TaskTokenBroker(),
      timeoutScale: 0.001,
      resolveTask: resolverOf({ 'invoke-async': async () => ({}) }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it('keeps a task alive while heartbeats arrive', async () => {
    // Prepare: heartbeat limit 100 s × 0.002 = 200 ms, a heartbeat every 10 ms, success after 400 ms
    const machine = asyncInferenceMachine(() => undefined, {
      heartbeatTimeout: sfn.Timeout.duration(Duration.seconds(100)),
    });
    const taskTokens = new TaskTokenBroker();

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      taskTokens,
      timeoutScale: 0.002,
      resolveTask: resolverOf({
        'invoke-async': async (input) => {
          const { taskToken } = input as unknown as AsyncPayload;
          const beats = setInterval(() => void taskTokens.sendTaskHeartbeat(taskToken), 10);
          setTimeout(() => {
            clearInterval(beats);
            void taskTokens.sendTaskSuccess(taskToken, 'done');
          }, 400);
          return {};
        },
      }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { inference: 'done' } });
  });

  it('fails when sendTaskSuccess comes after the task timed out, with TaskTimedOut', async () => {
    // Prepare
    const machine = asyncInferenceMachine(() => undefined, {
      taskTimeout: sfn.Timeout.duration(Duration.seconds(20)),
    });
    const taskTokens = new TaskTokenBroker();
    const tokens: string[] = [];
    await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      taskTokens,
      timeoutScale: 0.001,
      resolveTask: resolverOf({
        'invoke-async': async (input) => {
          tokens.push((input as unknown as AsyncPayload).taskToken);
          return {};
        },
      }),
    });

    // Act
    const late = taskTokens.sendTaskSuccess(tokens[0] ?? '', 'too late');

    // Assert
    await expect(late).rejects.toMatchObject({ name: 'TaskTimedOut' });
  });

  it('catches a task timeout with States.Timeout', async () => {
    // Prepare
    const machine = asyncInferenceMachine(
      (task, stack) =>
        task.addCatch(new sfn.Pass(stack, 'Timed out'), {
          errors: ['States.Timeout'],
          resultPath: '$.error',
        }),
      { taskTimeout: sfn.Timeout.duration(Duration.seconds(20)) },
    );

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      taskTokens: new TaskTokenBroker(),
      timeoutScale: 0.001,
      resolveTask: resolverOf({ 'invoke-async': async () => ({}) }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'SUCCEEDED', output: { error: { Error: 'States.Timeout' } } });
  });

  it('does not catch a task timeout with States.TaskFailed, as on AWS', async () => {
    // Prepare
    const machine = asyncInferenceMachine(
      (task, stack) =>
        task.addCatch(new sfn.Pass(stack, 'Task failed'), {
          errors: ['States.TaskFailed'],
          resultPath: '$.error',
        }),
      { taskTimeout: sfn.Timeout.duration(Duration.seconds(20)) },
    );

    // Act
    const result = await runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      taskTokens: new TaskTokenBroker(),
      timeoutScale: 0.001,
      resolveTask: resolverOf({ 'invoke-async': async () => ({}) }),
    });

    // Assert
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
  });

  it('fails when a .waitForTaskToken task has no taskTokens broker to resume it', async () => {
    // Prepare
    const machine = asyncInferenceMachine();

    // Act
    const run = runStateMachine({
      definition: machine.definition,
      resources: machine.resources,
      executionName: 'run-1',
      input: { inferenceId: 'inf-1' },
      resolveTask: resolverOf({ 'invoke-async': async () => ({}) }),
    });

    // Assert
    await expect(run).rejects.toThrow(/Invoke async and wait.*taskTokens broker/);
  });
});

describe('runStateMachine refusals', () => {
  it('fails when the state machine uses JSONata', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(
      stack,
      sfn.Pass.jsonata(stack, 'Shape output', { outputs: { runId: '{% $states.context.Execution.Name %}' } }),
      { queryLanguage: sfn.QueryLanguage.JSONATA },
    );

    // Act
    const run = runStateMachine({
      definition: machine.definition,
      executionName: 'run-1',
      input: {},
      resolveTask: resolverOf({}),
    });

    // Assert
    await expect(run).rejects.toThrow(UnsupportedDefinitionError);
    await expect(run).rejects.toThrow(/QueryLanguage is "JSONata"/);
  });

  it('fails when the execution name is not one AWS accepts', async () => {
    // Prepare
    const stack = newStack();
    const machine = synthStateMachine(stack, new sfn.Pass(stack, 'Nothing'));

    // Act
    const run = runStateMachine({
      definition: machine.definition,
      executionName: 'run 1/2',
      input: {},
      resolveTask: resolverOf({}),
    });

    // Assert
    await expect(run).rejects.toThrow(/"run 1\/2" is not a valid Step Functions execution name/);
  });
});

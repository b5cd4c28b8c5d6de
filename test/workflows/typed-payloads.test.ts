import { describe, expect, it } from '@jest/globals';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { ASYNC_INFERENCE_STEPS } from '../../core/contracts/async-state.js';
import {
  type CheckEndpointEvent,
  type DeployCandidateEvent,
  OPTIMIZATION_STEPS,
  type OptimizationStepEventsByName,
} from '../../core/contracts/optimization-state.js';
import type { StepHandlerTable } from '../../local/environment/step-handlers.js';
import type { AsyncInferenceSteps } from '../../workflows/async-inference-workflow.js';
import { lambdaStep, stepInvocation } from '../../workflows/lambda-step.js';
import type { OptimizationSteps } from '../../workflows/optimization-workflow.js';
import { TEST_ENV } from '../infra/app.js';
import { importedSteps } from '../support/imported-steps.js';

/**
 * Typed Task payloads (workflows/task-parameters.ts): a payload is checked by the type-check
 * against its step's event, by the registry. The `@ts-expect-error` lines are this suite's
 * assertions on the type-check (`npm run typecheck` fails when one of them no longer errs); the
 * tests' own assertions show that synth alone would have accepted each refused payload.
 */

const TIMEOUT = Duration.minutes(2);

/** Every step Lambda of both workflows, typed by the registries as the workflow constructs get them. */
function scope() {
  const stack = new Stack(new App(), 'TypedPayloads', { env: TEST_ENV });
  const fn = (name: string) =>
    LambdaFunction.fromFunctionArn(stack, name, `arn:aws:lambda:us-east-1:123456789012:function:${name}`);
  const steps: OptimizationSteps = importedSteps(stack, OPTIMIZATION_STEPS);
  const asyncSteps: AsyncInferenceSteps = importedSteps(stack, ASYNC_INFERENCE_STEPS);
  return { stack, fn, steps, asyncSteps };
}

/** The Parameters (or InputPath) of a Task as synthesized. */
function rendered(stack: Stack, task: sfn.TaskStateBase): { Parameters?: unknown; InputPath?: unknown } {
  return stack.resolve(task.toStateJson()) as { Parameters?: unknown; InputPath?: unknown };
}

describe('typed Task payloads', () => {
  it('gives the step the Parameters as written: paths as `field.$`, values as they are', () => {
    // Prepare
    const { stack, steps } = scope();

    // Act
    const task = lambdaStep(stack, 'Deregister ramp scaling', steps.rampScaling, {
      payload: { action: 'deregister', 'endpointName.$': '$.candidate.endpointName' },
      timeout: TIMEOUT,
    });

    // Assert
    expect(rendered(stack, task).Parameters).toEqual({
      action: 'deregister',
      'endpointName.$': '$.candidate.endpointName',
    });
  });

  it('takes a payload that is one path as the InputPath, the whole value as the event', () => {
    // Prepare
    const { stack, steps } = scope();

    // Act
    const task = lambdaStep(stack, 'Check compilation job', steps.checkCompilation, {
      payload: '$.job',
      timeout: TIMEOUT,
    });

    // Assert
    expect(rendered(stack, task)).toMatchObject({ InputPath: '$.job' });
    expect(rendered(stack, task).Parameters).toBeUndefined();
  });

  it('checks the Parameters of a Task built by hand as those of `lambdaStep`', () => {
    // Prepare
    const { stack, asyncSteps } = scope();

    // Act
    const task = new tasks.LambdaInvoke(stack, 'Invoke async inference', {
      ...stepInvocation(asyncSteps.invokeAsyncInference, {
        taskToken: sfn.JsonPath.taskToken,
        'runId.$': '$.runId',
        'itemIndex.$': '$.item.itemIndex',
        'inputLocation.$': '$.item.inputLocation',
        'endpointName.$': '$.invocation.endpointName',
        'contentType.$': '$.invocation.contentType',
        'invocationTimeoutSeconds.$': '$.invocation.invocationTimeoutSeconds',
        'requestTtlSeconds.$': '$.invocation.requestTtlSeconds',
        'waitTimeoutSeconds.$': '$.invocation.waitTimeoutSeconds',
      }),
      integrationPattern: sfn.IntegrationPattern.WAIT_FOR_TASK_TOKEN,
    });

    // Assert
    expect(rendered(stack, task).Parameters).toMatchObject({
      FunctionName: expect.anything(),
      Payload: { 'taskToken.$': '$$.Task.Token', 'runId.$': '$.runId' },
    });
  });

  it('fails the type-check, where synth would not, when a field is misspelt', () => {
    // Prepare
    const { stack, steps } = scope();

    // Act
    const task = lambdaStep(stack, 'Delete candidate endpoint', steps.deleteCandidate, {
      // @ts-expect-error `candidat` is not a field of DeleteCandidateEvent
      payload: { 'plan.$': '$.plan', 'candidat.$': '$.candidate' },
      timeout: TIMEOUT,
    });

    // Assert
    expect(rendered(stack, task).Parameters).toEqual({ 'plan.$': '$.plan', 'candidat.$': '$.candidate' });
  });

  it('fails the type-check, where synth would not, when a required field is missing', () => {
    // Prepare
    const { stack, steps } = scope();

    // Act
    const task = lambdaStep(stack, 'Check endpoint', steps.checkEndpoint, {
      // @ts-expect-error `deployment` is required by CheckEndpointEvent
      payload: { 'plan.$': '$.plan' },
      timeout: TIMEOUT,
    });

    // Assert
    expect(rendered(stack, task).Parameters).toEqual({ 'plan.$': '$.plan' });
  });

  it('fails the type-check, where synth would not, when a literal is not one the event allows', () => {
    // Prepare
    const { stack, steps } = scope();

    // Act
    const task = lambdaStep(stack, 'Deregister ramp scaling', steps.rampScaling, {
      // @ts-expect-error RampScalingEvent's `action` is 'apply' or 'deregister'
      payload: { action: 'remove', 'endpointName.$': '$.candidate.endpointName' },
      timeout: TIMEOUT,
    });

    // Assert
    expect(rendered(stack, task).Parameters).toMatchObject({ action: 'remove' });
  });

  it('fails the type-check, where synth would not, when a value has another type than its field', () => {
    // Prepare
    const { stack, steps } = scope();

    // Act
    const task = lambdaStep(stack, 'Run load worker', steps.runLoadWorker, {
      // @ts-expect-error RunLoadWorkerEvent's `workerIndex` is a number
      payload: { 'plan.$': '$.plan', 'candidateId.$': '$.id', 'deployment.$': '$.d', workerIndex: '0' },
      timeout: TIMEOUT,
    });

    // Assert
    expect(rendered(stack, task).Parameters).toMatchObject({ workerIndex: '0' });
  });

  it('fails the type-check, where synth would not, when a `field.$` value is not a path', () => {
    // Prepare
    const { stack, steps } = scope();

    // Act
    const task = lambdaStep(stack, 'Package model', steps.packageModel, {
      // @ts-expect-error a `field.$` value is a JsonPath, which starts with `$`
      payload: { 'plan.$': 'plan' },
      timeout: TIMEOUT,
    });

    // Assert
    expect(rendered(stack, task).Parameters).toEqual({ 'plan.$': 'plan' });
  });

  it('fails the type-check when a Lambda without an event type gets Parameters', () => {
    // Prepare
    const { stack, fn } = scope();

    // Act
    const task = lambdaStep(stack, 'Untyped', fn('untyped'), {
      // @ts-expect-error an IFunction that is not a registered step has no fields to check against
      payload: { 'plan.$': '$.plan' },
      timeout: TIMEOUT,
    });

    // Assert
    expect(rendered(stack, task).Parameters).toEqual({ 'plan.$': '$.plan' });
  });

  it('fails the type-check, where a run would fail later, when a local handler takes another step’s event', async () => {
    // Prepare
    const deployHandler = (payload: DeployCandidateEvent) =>
      Promise.resolve().then(() => payload.candidate.id);
    const table: Pick<StepHandlerTable<OptimizationStepEventsByName>, 'check-endpoint'> = {
      // @ts-expect-error "Check endpoint" takes a CheckEndpointEvent, which has no `candidate`
      'check-endpoint': deployHandler,
    };
    const event = { plan: {}, deployment: {} } as unknown as CheckEndpointEvent;

    // Act
    const handled = table['check-endpoint'](event, new AbortController().signal);

    // Assert
    await expect(handled).rejects.toThrow(TypeError);
  });
});

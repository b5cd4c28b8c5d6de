import { beforeAll, describe, expect, it } from '@jest/globals';
import { Duration, Stack } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { ASYNC_INFERENCE_STEPS, AsyncInferenceStates, BATCH_SIZE } from '../../core/contracts/async-state.js';
import { ErrorNames } from '../../core/contracts/errors.js';
import { asyncHistoryIssue } from '../../core/planning/history-limit.js';
import { asyncHistoryEvents } from '../../core/planning/history-model.js';
import { type AslDefinition, walkStates } from '../../local/runner/asl.js';
import type { ExtractedStateMachine, JsonObject } from '../../local/runner/index.js';
import { synthesizedWorkflows } from '../support/synthesized-workflows.js';
import {
  AsyncInferenceWorkflow,
  type AsyncInferenceSteps,
} from '../../workflows/async-inference-workflow.js';
import { LAMBDA_SERVICE_ERRORS } from '../../workflows/lambda-step.js';
import { TEST_ENV } from '../infra/app.js';
import { ASYNC_RUN_LIMITS } from '../../core/contracts/async-run-input.js';

/** The state machine `cdk synth` deploys, synthesized once for the whole file. */
let machine: ExtractedStateMachine;
let definition: AslDefinition;

beforeAll(() => {
  machine = synthesizedWorkflows().asyncInference;
  definition = machine.definition;
}, 120_000);

/** The `STEP_NAME` of each Lambda the state machine's Task states invoke, sorted. */
function invokedStepNames(machine: ExtractedStateMachine): string[] {
  return Object.values(machine.resources)
    .filter((resource) => resource.type === 'AWS::Lambda::Function')
    .map((resource) => {
      const environment = resource.properties.Environment as
        { Variables?: Record<string, unknown> } | undefined;
      return String(environment?.Variables?.STEP_NAME);
    })
    .sort();
}

function states(): { name: string; state: JsonObject }[] {
  return [...walkStates(definition)].map(({ name, state }) => ({ name, state }));
}

function byName(name: string): JsonObject {
  const found = states().find((s) => s.name === name);
  if (found === undefined) throw new Error(`No state named ${name}`);
  return found.state;
}

const WAIT_TASK = 'Invoke async inference';

describe('async-inference state machine definition', () => {
  it('invokes every registered step Lambda, and no other', () => {
    // Act
    const invoked = invokedStepNames(machine);

    // Assert
    expect(invoked).toEqual(Object.values(ASYNC_INFERENCE_STEPS).sort());
  });

  it('has a state of every name the contract gives other layers (progress, run API, CLIs)', () => {
    // Act
    const names = new Set(states().map(({ name }) => name));

    // Assert
    expect(Object.values(AsyncInferenceStates).filter((name) => !names.has(name))).toEqual([]);
  });

  describe('the wait for each input', () => {
    it('invokes its Lambda with .waitForTaskToken and hands it the task token', () => {
      // Act
      const wait = byName(WAIT_TASK);

      // Assert
      expect(wait.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
      expect(wait.Parameters).toMatchObject({ Payload: { 'taskToken.$': '$$.Task.Token' } });
    });

    it('times out after 7 h 15 min and fails after 15 minutes without a heartbeat, by default', () => {
      // Act
      const wait = byName(WAIT_TASK);

      // Assert
      expect([wait.TimeoutSeconds, wait.HeartbeatSeconds]).toEqual([26_100, 900]);
    });

    it('records a failed input and goes on, the error kept beside the item, unless the endpoint is gone', () => {
      // Act
      const wait = byName(WAIT_TASK);

      // Assert
      expect(wait.Catch).toEqual([
        { ErrorEquals: [ErrorNames.endpointFailed], ResultPath: '$.error', Next: 'Endpoint gone' },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Record failed input' },
      ]);
      expect(byName('Record failed input')).toEqual({
        Type: 'Pass',
        Parameters: { 'item.$': '$.item', 'error.$': '$.error' },
        End: true,
      });
    });

    it('stops the run when the endpoint is gone: the input fails its Map, with the error as it came', () => {
      // Act
      const gone = byName('Endpoint gone');

      // Assert
      expect(gone).toMatchObject({ Type: 'Fail', ErrorPath: '$.error.Error', CausePath: '$.error.Cause' });
      for (const name of ['Invoke each input', 'Process each batch']) {
        const map = byName(name);
        expect([map.Catch, map.ToleratedFailurePercentage, map.ToleratedFailureCount]).toEqual([
          undefined,
          undefined,
          undefined,
        ]);
      }
    });

    it('retries only the Lambda service errors and throttling, never a failed inference', () => {
      // Act
      const retried = ((byName(WAIT_TASK).Retry ?? []) as JsonObject[]).map((retry) => retry.ErrorEquals);

      // Assert
      expect(retried).toEqual([LAMBDA_SERVICE_ERRORS, [ErrorNames.transientService]]);
      expect(retried.flat()).not.toContain('States.ALL');
      expect(retried.flat()).not.toContain(ErrorNames.inferenceFailed);
    });

    it('takes its timeouts from the workflow props when set', () => {
      // Prepare
      const stack = new Stack(undefined, 'Timeouts', { env: TEST_ENV });
      const fn = LambdaFunction.fromFunctionArn(
        stack,
        'Step',
        'arn:aws:lambda:us-east-1:123456789012:function:step',
      );
      const steps: AsyncInferenceSteps = {
        validateAsyncRun: fn,
        deployAsyncEndpoint: fn,
        checkAsyncEndpoint: fn,
        loadBatch: fn,
        invokeAsyncInference: fn,
        recordBatchResults: fn,
        summarizeAsyncRun: fn,
        cleanUpAsyncRun: fn,
      };

      // Act
      const workflow = new AsyncInferenceWorkflow(stack, 'Workflow', {
        steps,
        waitTimeout: Duration.hours(2),
        heartbeatTimeout: Duration.minutes(20),
      });
      const wait = stack.resolve(workflow.waitTask.toStateJson()) as JsonObject;

      // Assert
      expect([wait.TimeoutSeconds, wait.HeartbeatSeconds]).toEqual([7200, 1200]);
      expect(workflow.waitTimeout.toSeconds()).toBe(7200);
    });
  });

  it('bounds both nested Maps by the plan (MaxConcurrencyPath)', () => {
    // Act
    const maps = states().filter(({ state }) => state.Type === 'Map');

    // Assert
    expect(maps.map(({ name, state }) => [name, state.MaxConcurrencyPath])).toEqual([
      ['Process each batch', '$.plan.batchConcurrency'],
      ['Invoke each input', '$.plan.itemConcurrency'],
    ]);
  });

  it('gives every Task a timeout', () => {
    // Act
    const tasks = states().filter(({ state }) => state.Type === 'Task');

    // Assert
    expect(tasks.length).toBeGreaterThanOrEqual(9);
    expect(tasks.filter(({ state }) => typeof state.TimeoutSeconds !== 'number').map((t) => t.name)).toEqual(
      [],
    );
  });

  it('retries only named errors, never every error', () => {
    // Act
    const retried = states().flatMap(({ name, state }) =>
      ((state.Retry ?? []) as JsonObject[]).map((retry) => ({ name, errors: retry.ErrorEquals as string[] })),
    );

    // Assert
    expect(retried.length).toBeGreaterThan(0);
    expect(
      retried.filter(({ errors }) => errors.includes('States.ALL') || errors.includes('States.TaskFailed')),
    ).toEqual([]);
  });

  it('keeps the state in every Catch (ResultPath), so clean-up knows what to delete', () => {
    // Act
    const catches = states().flatMap(({ name, state }) =>
      ((state.Catch ?? []) as JsonObject[]).map((c) => ({ name, resultPath: c.ResultPath })),
    );

    // Assert
    expect(catches.length).toBeGreaterThan(0);
    expect(catches.filter(({ resultPath }) => typeof resultPath !== 'string').map((c) => c.name)).toEqual([]);
  });

  it('sends every failure after validation to "Clean up after failure", then "Run failed"', () => {
    // Act
    const run = byName('Run async inference');
    const cleanUp = byName('Clean up after failure');

    // Assert
    expect(run.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Clean up after failure' },
    ]);
    expect(cleanUp.Next).toBe('Cleaned up after failure?');
    expect(byName('Cleaned up after failure?')).toEqual({
      Type: 'Choice',
      Choices: [
        { Variable: '$.cleanUp.status', StringEquals: 'WAITING', Next: 'Wait to clean up after failure' },
      ],
      Default: 'Add clean-up account to the error',
    });
    expect(byName('Wait to clean up after failure')).toEqual({
      Type: 'Wait',
      SecondsPath: '$.cleanUp.waitSeconds',
      Next: 'Clean up after failure',
    });
    expect(byName('Add clean-up account to the error')).toEqual({
      Type: 'Pass',
      InputPath: '$.cleanUp.runError',
      ResultPath: '$.error',
      Next: 'Run failed',
    });
    expect(cleanUp.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.cleanUpError', Next: 'Run failed' },
    ]);
    expect(byName('Run failed')).toEqual({
      Type: 'Fail',
      ErrorPath: '$.error.Error',
      CausePath: '$.error.Cause',
    });
  });

  it('records a failed success-path clean-up in the summary instead of failing the run', () => {
    // Act
    const cleanUp = byName('Clean up async run');

    // Assert
    expect(cleanUp.ResultPath).toBe('$.summary.cleanUp');
    expect(cleanUp.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.cleanUpError', Next: 'Record failed async clean-up' },
    ]);
    expect(byName('Record failed async clean-up')).toMatchObject({
      ResultPath: '$.summary.cleanUp',
      Next: 'Clean-up accounted for',
    });
    expect(byName('Clean-up accounted for')).toEqual({ Type: 'Pass', End: true });
  });

  it('refuses an invalid input or a missing serving image before anything is created', () => {
    // Act
    const validate = byName('Validate async run');

    // Assert
    expect(definition.StartAt).toBe('Validate async run');
    expect(validate.Catch).toEqual([
      {
        ErrorEquals: [ErrorNames.invalidRunInput, ErrorNames.noServingImage],
        ResultPath: '$.error',
        Next: 'Run refused',
      },
    ]);
    expect(byName('Run refused')).toMatchObject({ Type: 'Fail', ErrorPath: '$.error.Error' });
  });

  it('uses JSONPath only, and never writes ResultPath "$"', () => {
    // Act
    const text = JSON.stringify(definition);

    // Assert
    expect(definition.QueryLanguage ?? 'JSONPath').toBe('JSONPath');
    expect(states().filter(({ state }) => state.QueryLanguage !== undefined)).toEqual([]);
    expect(text).not.toContain('{%');
    expect(
      states()
        .filter(({ state }) => state.ResultPath === '$')
        .map((s) => s.name),
    ).toEqual([]);
  });

  describe('history budget', () => {
    /**
     * A Standard execution stops at 25,000 history events (Step Functions quotas), inline Map
     * iterations included. Heartbeats add no event (no such type among the HistoryEvent types,
     * Step Functions API reference), so a long wait costs what a short one does.
     */
    const HISTORY_LIMIT = 25_000;

    /**
     * Events a state adds each time it runs, after the HistoryEvent types: `*StateEntered` and
     * `*StateExited`; a Lambda invoked by function ARN adds LambdaFunctionScheduled, Started and
     * Succeeded; a `.waitForTaskToken` task adds TaskScheduled, Started, Submitted and Succeeded (or
     * Failed/TimedOut); a Map or Parallel adds Started and Succeeded, each Map iteration
     * MapIterationStarted and MapIterationSucceeded; a Fail state only FailStateEntered.
     */
    function eventsOfState(state: JsonObject): number {
      switch (state.Type) {
        case 'Task':
          return typeof state.Resource === 'string' && state.Resource.endsWith('.waitForTaskToken') ? 6 : 5;
        case 'Map':
        case 'Parallel':
          return 4;
        case 'Fail':
          return 1;
        default:
          return 2;
      }
    }

    /** A retried attempt: scheduled, started, failed. */
    const EVENTS_PER_RETRY = 3;
    const MAP_ITERATION_EVENTS = 2;

    interface Scenario {
      /** Iterations of each Map state, by name. */
      readonly iterations: Readonly<Record<string, number>>;
      /** States that fail and are caught (their Catch's Next is followed). */
      readonly caught?: ReadonlySet<string>;
      /** Retried attempts per run of a state, by name. */
      readonly retries?: Readonly<Record<string, number>>;
      /** Where each Choice goes, by name (its Default otherwise). */
      readonly choices?: Readonly<Record<string, string>>;
    }

    /** The events of one pass through a state list, from its StartAt to an End, a Succeed or a Fail. */
    function eventsOfPath(states: AslDefinition, scenario: Scenario): number {
      let events = 0;
      let name: string | undefined = states.StartAt;
      while (name !== undefined) {
        const state = states.States[name];
        if (state === undefined) throw new Error(`No state named ${name} in the path`);
        events += eventsOfState(state) + (scenario.retries?.[name] ?? 0) * EVENTS_PER_RETRY;
        if (state.Type === 'Map') {
          const processor = state.ItemProcessor as AslDefinition;
          events +=
            (scenario.iterations[name] ?? 0) * (MAP_ITERATION_EVENTS + eventsOfPath(processor, scenario));
        }
        if (state.Type === 'Parallel') {
          events += (state.Branches as AslDefinition[]).reduce(
            (sum, branch) => sum + eventsOfPath(branch, scenario),
            0,
          );
        }
        name = nextOf(name, state, scenario);
      }
      return events;
    }

    function nextOf(name: string, state: JsonObject, scenario: Scenario): string | undefined {
      if (scenario.caught?.has(name) === true)
        return ((state.Catch as JsonObject[])[0] as JsonObject).Next as string;
      if (state.Type === 'Choice') return scenario.choices?.[name] ?? (state.Default as string);
      if (state.End === true || state.Type === 'Succeed' || state.Type === 'Fail') return undefined;
      return state.Next as string;
    }

    /** Execution started and succeeded. */
    const EXECUTION_EVENTS = 2;

    /**
     * The worst endpoint preparation: deployed, then a benchmark's wait for zero instances, each to
     * its deadline (45 and 60 minutes, core/steps/async/validate-async-run.ts) at the shortest
     * default poll (30 s, lambdas/wiring.ts): Deploy once, then rounds of Wait → Check → "Endpoint
     * prepared?".
     */
    function endpointPreparationEvents(): number {
      const rounds = (45 * 60 + 60 * 60) / 30;
      const round = ['Wait for async endpoint', 'Check async endpoint', 'Endpoint prepared?']
        .map((name) => eventsOfState(byName(name)))
        .reduce((sum, events) => sum + events, 0);
      return eventsOfState(byName('Deploy async endpoint')) + rounds * round;
    }

    const inputs = ASYNC_RUN_LIMITS.maxInputs;
    const iterations = {
      'Process each batch': Math.ceil(inputs / BATCH_SIZE),
      'Invoke each input': BATCH_SIZE,
    };

    it('keeps a run of the most inputs whose inputs all succeed under half the limit', () => {
      // Act
      const events =
        EXECUTION_EVENTS + eventsOfPath(definition, { iterations }) + endpointPreparationEvents();

      // Assert
      expect(events).toBeLessThan(HISTORY_LIMIT / 2);
    });

    it('keeps a run of the most inputs whose inputs are all throttled once, then fail, under 80% of the limit', () => {
      // Act
      const events =
        EXECUTION_EVENTS +
        eventsOfPath(definition, {
          iterations,
          caught: new Set([WAIT_TASK]),
          retries: { [WAIT_TASK]: 1 },
        }) +
        endpointPreparationEvents();

      // Assert
      expect(events).toBeLessThan(HISTORY_LIMIT * 0.8);
    });

    it('refuses at planning 1,000 inputs each throttled five times, which pass the quota, and lets the most inputs allowed run', () => {
      // Prepare: the wait task's throttling Retry as synthesized; every input throttled to its end, then failed.
      const retrier = (byName(WAIT_TASK).Retry as JsonObject[]).find((retry) =>
        (retry.ErrorEquals as string[]).includes(ErrorNames.transientService),
      );
      const throttles = Number(retrier?.MaxAttempts);
      const endpointRounds = (45 * 60 + 60 * 60) / 30;
      const walk = (count: number): number =>
        EXECUTION_EVENTS +
        eventsOfPath(definition, {
          iterations: {
            'Process each batch': Math.ceil(count / BATCH_SIZE),
            'Invoke each input': BATCH_SIZE,
          },
          caught: new Set([WAIT_TASK]),
          retries: { [WAIT_TASK]: throttles },
        }) +
        endpointPreparationEvents();
      const shape = (count: number) => ({ inputs: count, batchSize: BATCH_SIZE, endpointRounds });

      // Act
      const [thousand, most] = [walk(1000), walk(inputs)];

      // Assert: the model counts at least what the definition records (its clean-up rounds to
      // their deadline, four events a retried wait), so planning refuses what would overflow.
      expect(throttles).toBe(5);
      expect(thousand).toBeGreaterThan(HISTORY_LIMIT);
      expect(asyncHistoryEvents(shape(1000))).toBeGreaterThanOrEqual(thousand);
      expect(asyncHistoryIssue(shape(1000))?.field).toBe('inputs');
      expect(asyncHistoryEvents(shape(inputs))).toBeGreaterThanOrEqual(most);
      expect(asyncHistoryIssue(shape(inputs))).toBeUndefined();
    });

    it('costs eight events an input (its iteration and the wait task), however long the wait', () => {
      // Prepare
      const oneInputMore = { ...iterations, 'Invoke each input': BATCH_SIZE + 1 };

      // Act
      const perBatchIteration =
        eventsOfPath(definition, { iterations: { ...oneInputMore, 'Process each batch': 1 } }) -
        eventsOfPath(definition, { iterations: { ...iterations, 'Process each batch': 1 } });

      // Assert
      expect(perBatchIteration).toBe(MAP_ITERATION_EVENTS + 6);
    });
  });
});

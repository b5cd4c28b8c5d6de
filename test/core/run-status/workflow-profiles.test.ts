import { describe, expect, it } from '@jest/globals';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { ProgressProfile } from '../../../core/run-status/progress.js';
import {
  ASYNC_INFERENCE_PROGRESS,
  BATCH_MAP_STATE,
  BENCHMARK_MAP_STATE,
  INPUT_MAP_STATE,
  OPTIMIZATION_PROGRESS,
} from '../../../core/run-status/workflow-profiles.js';
import { walkStates } from '../../../local/runner/asl.js';
import { extractStateMachines } from '../../../local/runner/index.js';
import { AsyncInferenceWorkflow } from '../../../workflows/async-inference-workflow.js';
import { OptimizationWorkflow } from '../../../workflows/optimization-workflow.js';

interface StateFound {
  readonly type: unknown;
  /** The Map states it is nested in, outermost first. */
  readonly maps: readonly string[];
}

/** Both workflows' states, from their synthesized definitions (imported functions: no bundling). */
function synthesizedStates(): Record<'optimization' | 'async', Map<string, StateFound[]>> {
  // No built-in CloudFormation validation: it costs ~3 CPU-seconds to start; the app's suites run it.
  const app = new App({ builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Profiles', { env: { account: '123456789012', region: 'us-east-1' } });
  const fn = (name: string) =>
    LambdaFunction.fromFunctionArn(stack, name, `arn:aws:lambda:us-east-1:123456789012:function:${name}`);
  new OptimizationWorkflow(stack, 'Optimization', {
    steps: {
      validateAndPlan: fn('validate-and-plan'),
      packageModel: fn('package-model'),
      startCompilation: fn('start-compilation'),
      checkCompilation: fn('check-compilation'),
      deployCandidate: fn('deploy-candidate'),
      checkEndpoint: fn('check-endpoint'),
      runLoadWorker: fn('run-load-worker'),
      aggregateLoadTest: fn('aggregate-load-test'),
      deleteCandidate: fn('delete-candidate'),
      recommend: fn('recommend'),
      recordProof: fn('record-proof'),
      rampScaling: fn('ramp-scaling'),
      recordRamp: fn('record-ramp'),
      qualityPass: fn('quality-pass'),
      cleanUp: fn('clean-up'),
    },
  });
  new AsyncInferenceWorkflow(stack, 'AsyncInference', {
    steps: {
      validateAsyncRun: fn('validate-async-run'),
      deployAsyncEndpoint: fn('deploy-async-endpoint'),
      checkAsyncEndpoint: fn('check-async-endpoint'),
      loadBatch: fn('load-batch'),
      invokeAsyncInference: fn('invoke-async-inference'),
      recordBatchResults: fn('record-batch-results'),
      summarizeAsyncRun: fn('summarize-async-run'),
      cleanUpAsyncRun: fn('clean-up-async-run'),
    },
  });
  const machines = extractStateMachines(Template.fromStack(stack).toJSON());
  const statesOf = (prefix: string) => {
    const machine = machines.find((candidate) => candidate.name.startsWith(prefix));
    if (machine === undefined) throw new Error(`no ${prefix} state machine in the synthesized stack`);
    const all = [...walkStates(machine.definition)];
    const maps = new Set(all.filter(({ state }) => state.Type === 'Map').map(({ name }) => name));
    const byName = new Map<string, StateFound[]>();
    for (const { name, state, scope } of all) {
      byName.set(name, [
        ...(byName.get(name) ?? []),
        { type: state.Type, maps: scope.filter((label) => maps.has(label)) },
      ]);
    }
    return byName;
  };
  return { optimization: statesOf('Optimization'), async: statesOf('AsyncInference') };
}

/** Each phase state: found once, outside any Map (a phase of the run, not a step of an item). */
function phasesOf(profile: ProgressProfile, states: Map<string, StateFound[]>) {
  return (profile.phaseStates ?? []).map((phase) => ({
    phase,
    found: states.get(phase)?.map((s) => s.maps),
  }));
}

describe('workflow progress profiles', () => {
  const states = synthesizedStates();

  it('name the optimization workflow’s benchmark Map, outside any other Map', () => {
    // Act
    const benchmark = states.optimization.get(BENCHMARK_MAP_STATE);

    // Assert
    expect(benchmark).toEqual([{ type: 'Map', maps: [] }]);
  });

  it('name as optimization phases states that run once per run, outside any Map', () => {
    // Act
    const phases = phasesOf(OPTIMIZATION_PROGRESS, states.optimization);

    // Assert
    expect(phases).toEqual(
      (OPTIMIZATION_PROGRESS.phaseStates ?? []).map((phase) => ({ phase, found: [[]] })),
    );
  });

  it('name the async workflow’s batches Map and the inputs Map nested in it', () => {
    // Act
    const maps = [states.async.get(BATCH_MAP_STATE), states.async.get(INPUT_MAP_STATE)];

    // Assert
    expect(maps).toEqual([[{ type: 'Map', maps: [] }], [{ type: 'Map', maps: [BATCH_MAP_STATE] }]]);
    expect(ASYNC_INFERENCE_PROGRESS).toMatchObject({
      itemsMapState: INPUT_MAP_STATE,
      groups: { mapState: BATCH_MAP_STATE },
    });
  });

  it('name as async phases states that run once per run, outside any Map', () => {
    // Act
    const phases = phasesOf(ASYNC_INFERENCE_PROGRESS, states.async);

    // Assert
    expect(phases).toEqual(
      (ASYNC_INFERENCE_PROGRESS.phaseStates ?? []).map((phase) => ({ phase, found: [[]] })),
    );
  });
});

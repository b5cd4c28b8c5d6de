import { describe, expect, it } from '@jest/globals';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';

const MODEL_URI = 's3://user-models/llm/model.tar.gz';
const PAYLOAD_URI = 's3://user-models/llm/prompt.json';
const IMAGE = '763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.29.0-lmi11.0.0-cu124';
const QUANTIZE_AWQ = { quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'awq' } } };

/** A generative run comparing a plain and an AWQ-quantized model on ml.g5.xlarge. */
function input(optimizations: readonly Record<string, unknown>[]): Record<string, unknown> {
  return {
    model: { artifactUri: MODEL_URI, framework: 'pytorch', frameworkVersion: '2.1', image: IMAGE },
    payload: { uri: PAYLOAD_URI },
    compilation: { maxRuntimeSeconds: 1800, optimizations },
    candidates: [
      { id: 'g5-plain', instanceType: 'ml.g5.xlarge' },
      // The same two candidates either way: the second serves the optimized model when there is one.
      { instanceType: 'ml.g5.xlarge', ...(optimizations.length === 0 ? {} : { optimizedBy: 'g5-awq' }) },
    ],
    loadPlan: {
      steps: [1],
      warmupSeconds: 5,
      stepDurationSeconds: 60,
      response: { mode: 'stream', format: 'tgi' },
    },
    sla: { ttftP95Ms: 500 },
  };
}

function deps(): ValidateAndPlanDeps {
  // A gzip header: the model archive's first bytes are checked.
  const gzip = new Uint8Array([0x1f, 0x8b, 0x08, 0x00]);
  return {
    store: new MemoryObjectStore().seed(MODEL_URI, gzip).seed(PAYLOAD_URI, '{"inputs":"Hi","stream":true}'),
    artifactsBucket: 'mso-artifacts',
    allowFileUris: false,
    logger: silentLogger,
  };
}

const AWQ = { id: 'g5-awq', deploymentInstanceType: 'ml.g5.xlarge', techniques: QUANTIZE_AWQ };

describe('validateAndPlan: optimization jobs', () => {
  it('plans each optimization as an item of the compile Map, named after the run, with its own output prefix', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: input([AWQ]) }, deps());

    // Assert
    expect(plan.compilations).toEqual([
      {
        target: 'g5-awq',
        jobName: 'mso-run-1-4e65d3fb-oj-g5-awq',
        outputUri: 's3://mso-artifacts/runs/run-1/optimized/g5-awq/',
        optimization: { deploymentInstanceType: 'ml.g5.xlarge', techniques: QUANTIZE_AWQ },
      },
    ]);
    expect(plan.compilationMaxRuntimeSeconds).toBe(1800);
    expect(plan.candidates.map((c) => [c.id, c.optimizedBy])).toEqual([
      ['g5-plain', undefined],
      ['c2-g5-xlarge-opt', 'g5-awq'],
    ]);
  });

  it('says that the optimization job’s instance is not in the estimate', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: input([AWQ]) }, deps());

    // Assert
    expect(plan.estimate.assumptions).toContain(
      '1 optimization job(s) not in the total: SageMaker bills each for the instance it chooses to run it on, up to compilation.maxRuntimeSeconds',
    );
  });

  it('counts the job’s whole runtime in the worst duration and its polls in the history budget', async () => {
    // Prepare
    const plain = await validateAndPlan({ runId: 'run-1', input: input([]) }, deps());

    // Act
    const optimized = await validateAndPlan({ runId: 'run-1', input: input([AWQ]) }, deps());

    // Assert: the job polled to its deadline (1800 s runtime + the 600 s margin) before any candidate,
    // and its Map iteration, its start and its Wait → Check rounds to that deadline in the history
    // (planning/history-model.ts counts them as a Neo target's).
    expect({
      worst: (optimized.estimate.durationSeconds?.worst ?? 0) - (plain.estimate.durationSeconds?.worst ?? 0),
      history:
        (optimized.budgets?.historyEvents.worstCase ?? 0) - (plain.budgets?.historyEvents.worstCase ?? 0),
    }).toEqual({ worst: 2400, history: 207 });
  });
});

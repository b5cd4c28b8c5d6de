import { describe, expect, it } from '@jest/globals';
import { estimateAsyncRun } from '../../../core/async/async-estimate.js';
import { concurrencyOf } from '../../../core/steps/async/validate-async-run.js';
import { type AsyncRunPlan, BATCH_SIZE } from '../../../core/contracts/async-state.js';
import { DEPLOY_SPEC, deployPlan, reusePlan } from './support/endpoint-loop.js';

/** The inputs and concurrency "Validate async run" plans for `itemCount` inputs and a `maxConcurrency`. */
function inputs(itemCount: number, maxConcurrency: number): Partial<AsyncRunPlan> {
  const batches = Array.from({ length: Math.ceil(itemCount / BATCH_SIZE) }, (_, batchIndex) => ({
    batchIndex,
    firstItemIndex: batchIndex * BATCH_SIZE,
    itemCount: Math.min(BATCH_SIZE, itemCount - batchIndex * BATCH_SIZE),
  }));
  return { itemCount, batches, ...concurrencyOf(batches.length, itemCount, maxConcurrency) };
}

const INPUTS_DEPLOYED = {
  ...inputs(100, 30),
  invocation: { ...deployPlan().invocation, invocationTimeoutSeconds: 900 },
};

describe('estimateAsyncRun', () => {
  it("bounds a deployed endpoint's cost: creation at one instance, the inputs and deletion at maxInstanceCount", () => {
    // Prepare: ml.c5.xlarge ($0.204/h), 3 instances × 4 invocations, 30 inputs in flight.
    const plan = deployPlan(INPUTS_DEPLOYED);

    // Act
    const estimate = estimateAsyncRun(plan);

    // Assert: 600 s + 3 × (9 rounds of 900 s) + 3 × 120 s = 25,260 instance-seconds.
    expect(estimate).toEqual({
      totalUsd: 1.43,
      usdPerHour: 0.204,
      priceTable: {
        url: 'https://aws.amazon.com/sagemaker/pricing/',
        region: 'us-east-1',
        kind: 'Real-Time Inference, on-demand, per instance-hour',
        recordedOn: '2025-10-01',
      },
      durationSeconds: 600 + 8100 + 120,
      // The endpoint's deadline, 3 batches one after the other, each 2 rounds of 30 waits, the deletion.
      worstDurationSeconds: 2700 + 3 * 2 * 26_100 + 120,
      assumptions: [
        'endpoint billed 10 min while creating, at 1 instance',
        '100 input(s), 12 at a time, each taking its whole invocationTimeoutSeconds (900 s): 8100 s, billed at all 3 instance(s) (maxInstanceCount)',
        'deleted after the run (2 min at 3 instance(s))',
        'Step Functions, Lambda, S3 and SNS requests not counted (cents)',
      ],
    });
  });

  it('adds nothing for a reused endpoint, assumed to take every input in flight at once', () => {
    // Prepare
    const plan = reusePlan(INPUTS_DEPLOYED);

    // Act
    const estimate = estimateAsyncRun(plan);

    // Assert
    expect(estimate).toEqual({
      totalUsd: 0,
      durationSeconds: 4 * 900,
      worstDurationSeconds: 3 * 2 * 26_100,
      assumptions: [
        'endpoint team-async-endpoint reused: $0 added (its instances are billed to its owner already)',
        '100 input(s), 30 at a time, each taking its whole invocationTimeoutSeconds (900 s): 3600 s (its capacity is unknown: every input in flight processed at once)',
      ],
    });
  });

  it("counts a benchmark's wait for zero instances at one instance, and its scale-out from zero", () => {
    // Prepare: a burst of 20, 60 s each at most.
    const plan = deployPlan({
      ...inputs(20, 20),
      benchmark: { burstSize: 20 },
      invocation: { ...deployPlan().invocation, invocationTimeoutSeconds: 60 },
    });

    // Act
    const estimate = estimateAsyncRun(plan);

    // Assert: 600 + 3600 s at one instance, then 3 × (2 rounds of 60 s + 120 s).
    expect([estimate.totalUsd, estimate.durationSeconds, estimate.assumptions[1]]).toEqual([
      0.28,
      600 + 3600 + 600 + 120 + 120,
      'a benchmark waits up to 60 min for zero instances, then 10 min for the scale-out from zero',
    ]);
  });

  it("counts a kept endpoint's scale-in to zero after the run instead of its deletion", () => {
    // Prepare
    const plan = deployPlan({ endpoint: { ...deployPlan().endpoint, keepAfterRun: true } });

    // Act
    const estimate = estimateAsyncRun(plan);

    // Assert: 600 s + 3 × 900 s + 3 × 3600 s; the run ends once its input is done.
    expect([estimate.totalUsd, estimate.durationSeconds, estimate.assumptions[2]]).toEqual([
      0.8,
      600 + 900,
      'kept after the run: billed until it scales in to zero, up to 60 min at 3 instance(s), then $0 while at zero',
    ]);
  });

  it('assumes one invocation per instance when SageMaker picks the number', () => {
    // Prepare
    const plan = deployPlan({
      ...INPUTS_DEPLOYED,
      endpoint: { ...deployPlan().endpoint, deploy: DEPLOY_SPEC },
    });

    // Act
    const estimate = estimateAsyncRun(plan);

    // Assert
    expect(estimate.assumptions[1]).toBe(
      '100 input(s), 3 at a time, each taking its whole invocationTimeoutSeconds (900 s): 30600 s, billed at all 3 instance(s) (maxInstanceCount); 1 invocation per instance assumed (SageMaker picks it when unset)',
    );
  });

  it('leaves the cost out for an instance the price table does not have, and says so', () => {
    // Prepare
    const plan = deployPlan({
      endpoint: { ...deployPlan().endpoint, deploy: { ...DEPLOY_SPEC, instanceType: 'ml.x9.large' } },
    });

    // Act
    const estimate = estimateAsyncRun(plan);

    // Assert
    expect([estimate.totalUsd, estimate.assumptions[0]]).toEqual([
      undefined,
      "ml.x9.large has no price in the table: the endpoint's cost is not estimated",
    ]);
  });

  it("stops the durations at the execution's 48-hour timeout", () => {
    // Prepare: 1,000 inputs, 10 in flight: 100 rounds of 26,100 s at worst.
    const plan = deployPlan(inputs(1000, 10));

    // Act
    const estimate = estimateAsyncRun(plan);

    // Assert
    expect([estimate.durationSeconds, estimate.worstDurationSeconds, estimate.assumptions.at(-1)]).toEqual([
      600 + 100 * 900 + 120,
      48 * 3600,
      "durations stop at the execution's 48-hour timeout, where Step Functions stops the run",
    ]);
  });
});

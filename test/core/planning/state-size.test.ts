import { describe, expect, it } from '@jest/globals';
import { largestOptimizationState, stateSizeIssue } from '../../../core/planning/state-size.js';

describe('stateSizeIssue', () => {
  it('names tags when they make the plan pass 256 KB', () => {
    // Prepare: 1,200 tags of 256-character values.
    const tags = Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`tag-${i}`, 'v'.repeat(256)]));

    // Act
    const issue = stateSizeIssue({
      plan: { tags },
      candidates: [{ environment: {} }],
      compilationTargets: 0,
      workersPerCandidate: 1,
      tags,
      modelEnvironment: {},
      expandedByRanges: false,
    });

    // Assert
    expect(issue).toEqual({
      field: 'tags',
      given:
        '322891 bytes (as JSON): the largest state (a candidate\'s state after "Run load workers") reaches 331622 bytes',
      expected:
        "tags of at most 253413 bytes (as JSON), so that every state stays within 262144 bytes (Step Functions' payload quota per state; States.DataLimitExceeded cannot be caught)",
    });
  });
});

describe('largestOptimizationState', () => {
  it('counts the proof’s request, candidate, deployment, workers and verdict on top of the run state', () => {
    // Prepare: many candidates, so the run state is the largest without a proof.
    const candidates = Array.from({ length: 40 }, () => ({ environment: {} }));
    const footprint = {
      plan: { loadPlan: { steps: [1] } },
      candidates,
      compilationTargets: 0,
      workersPerCandidate: 1,
      tags: {},
      modelEnvironment: {},
      expandedByRanges: false,
    };
    const without = largestOptimizationState(footprint);

    // Act
    const withProof = largestOptimizationState({ ...footprint, proofWorkers: 3 });

    // Assert: 2 × the largest candidate ({"environment":{}}: 18 bytes), the load plan ({"steps":[1]}: 13 bytes),
    // a deployment (1,024), 3 worker outcomes (512 each) and a verdict (3,072).
    expect([without.state, withProof.state, withProof.bytes - without.bytes]).toEqual([
      'the run state after "Benchmark each candidate"',
      'the run state after "Run proof load workers"',
      2 * 18 + 13 + 1024 + 3 * 512 + 3072,
    ]);
  });

  it('names the run state after "Run ramp load workers" when the ramp’s is the largest', () => {
    // Prepare: many candidates, so the run state is the largest without a ramp.
    const footprint = {
      plan: { loadPlan: { steps: [1] } },
      candidates: Array.from({ length: 40 }, () => ({ environment: {} })),
      compilationTargets: 0,
      workersPerCandidate: 1,
      tags: {},
      modelEnvironment: {},
      expandedByRanges: false,
    };
    const without = largestOptimizationState(footprint);

    // Act
    const withRamp = largestOptimizationState({ ...footprint, rampWorkers: 3 });

    // Assert: 2 × the largest candidate (18 bytes), the load plan (13 bytes), the scaling requests
    // (1,024), a deployment (1,024), 3 worker outcomes (512 each), the aggregate's outcome and the
    // verdict (3,072 each), and in the verdict a re-test's request (candidate, load plan, requests).
    expect([withRamp.state, withRamp.bytes - without.bytes]).toEqual([
      'the run state after "Run ramp load workers"',
      2 * 18 + 13 + 1024 + 1024 + 3 * 512 + 2 * 3072 + (18 + 13 + 1024),
    ]);
  });

  it('counts the proof’s request and verdict, left in the summary, beside the ramp’s when both run', () => {
    // Prepare
    const footprint = {
      plan: { loadPlan: { steps: [1] } },
      candidates: Array.from({ length: 40 }, () => ({ environment: {} })),
      compilationTargets: 0,
      workersPerCandidate: 1,
      tags: {},
      modelEnvironment: {},
      expandedByRanges: false,
    };
    const rampAlone = largestOptimizationState({ ...footprint, rampWorkers: 3 });

    // Act
    const both = largestOptimizationState({ ...footprint, proofWorkers: 3, rampWorkers: 3 });

    // Assert: the proof's request, a candidate (18 bytes) and the load plan (13 bytes), and its
    // verdict (3,072) stay in the summary.
    expect([both.state, both.bytes - rampAlone.bytes]).toEqual([
      'the run state after "Run ramp load workers"',
      18 + 13 + 3072,
    ]);
  });

  it('keeps naming a candidate’s state when it is larger than the ramp’s', () => {
    // Prepare: one candidate with 40 workers: 40 worker outcomes outweigh the ramp's additions.
    const footprint = {
      plan: { loadPlan: { steps: [1] } },
      candidates: [{ environment: {} }],
      compilationTargets: 0,
      workersPerCandidate: 40,
      tags: {},
      modelEnvironment: {},
      expandedByRanges: false,
    };

    // Act
    const largest = largestOptimizationState({ ...footprint, rampWorkers: 1 });

    // Assert
    expect(largest.state).toBe('a candidate\'s state after "Run load workers"');
  });
});

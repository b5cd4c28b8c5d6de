import { describe, expect, it } from '@jest/globals';
import {
  asyncHistoryEvents,
  asyncHistoryIssue,
  DEFAULT_POLL_SCHEDULE,
  historyIssue,
  largestOptimizationState,
  loadTestRerunsWithin,
  optimizationHistoryEvents,
  pollRoundsWithin,
  runTimeIssue,
  stateSizeIssue,
  worstRunSeconds,
} from '../../../handlers/contracts/execution-limits.js';

const TIMINGS = {
  endpointDeadlineSeconds: 45 * 60,
  compilationDeadlineSeconds: 900 + 600,
  compilationMaxRuntimeSeconds: 900,
  endpointPolling: DEFAULT_POLL_SCHEDULE,
  compilationPolling: DEFAULT_POLL_SCHEDULE,
};

describe('pollRoundsWithin', () => {
  it('counts 24 rounds for a 45-minute deadline polled at 30 s, 60 s, then every 2 minutes', () => {
    // Act
    const rounds = pollRoundsWithin(45 * 60, DEFAULT_POLL_SCHEDULE);

    // Assert: 30 + 60 + 22 × 120 = 2,730 s is the first total past 2,700 s.
    expect(rounds).toBe(24);
  });
});

describe('loadTestRerunsWithin', () => {
  it('allows a load test re-run per candidate when the worst case with every one re-run fits', () => {
    // Act
    const reruns = loadTestRerunsWithin(
      { candidates: 10, workersPerCandidate: 4, compilationTargets: 2 },
      TIMINGS,
    );

    // Assert
    expect(reruns).toBe(1);
  });

  it('allows none when only the run without re-runs fits, rather than refusing the run', () => {
    // Prepare: 50 candidates × 25 workers fit the budget (historyIssue), with re-runs they would not.
    const counts = { candidates: 50, workersPerCandidate: 25, compilationTargets: 1 };

    // Act
    const reruns = loadTestRerunsWithin(counts, TIMINGS);

    // Assert
    expect([historyIssue(counts, TIMINGS), reruns]).toEqual([undefined, 0]);
  });

  it('counts the final clean-up’s rounds too, as the refusal does', () => {
    // Prepare: 59 candidates × 10 workers re-run fit the budget only without the clean-up rounds.
    const counts = { candidates: 59, workersPerCandidate: 10, compilationTargets: 1 };
    const withoutCleanUp = optimizationHistoryEvents({
      ...counts,
      endpointRounds: pollRoundsWithin(TIMINGS.endpointDeadlineSeconds, DEFAULT_POLL_SCHEDULE),
      compilationRounds: pollRoundsWithin(TIMINGS.compilationDeadlineSeconds, DEFAULT_POLL_SCHEDULE),
      loadTestRuns: 2,
    }).total;

    // Act
    const reruns = loadTestRerunsWithin(counts, TIMINGS);

    // Assert
    expect([withoutCleanUp, reruns]).toEqual([23_964, 0]);
  });
});

describe('historyIssue', () => {
  it('names candidates when their polling, not their workers, fills the history', () => {
    // Act
    const issue = historyIssue(
      { candidates: 50, workersPerCandidate: 1, compilationTargets: 0 },
      {
        ...TIMINGS,
        endpointPolling: { pollSeconds: 30, maxPollSeconds: 30 },
      },
    );

    // Assert: 91 rounds of 30 s, 9 events each, per candidate.
    expect(issue).toEqual({
      field: 'candidates',
      given:
        '50 candidates (after expanding environmentRanges), each polled for up to 45 minutes: up to 42918 history events',
      expected:
        "at most 27 candidates with these settings: a run may record at most 24000 history events (Step Functions' 25000 per execution, less 1000 kept for retries), and a full history cannot be caught",
    });
  });

  it('names compilation.maxRuntimeSeconds when long compilation jobs fill the history', () => {
    // Act
    const issue = historyIssue(
      { candidates: 1, workersPerCandidate: 1, compilationTargets: 9 },
      {
        ...TIMINGS,
        compilationDeadlineSeconds: 86_400 + 600,
        compilationMaxRuntimeSeconds: 86_400,
      },
    );

    // Assert
    expect(issue?.field).toBe('compilation.maxRuntimeSeconds');
    expect(issue?.given).toBe('86400 s for each of 9 targets: up to 59486 history events');
  });
});

describe('load tests in segments', () => {
  const HISTORY_LIMIT =
    "a run may record at most 24000 history events (Step Functions' 25000 per execution, less 1000 kept for retries), and a full history cannot be caught";

  it('counts each further segment as the workers, the aggregation, the Choice and the Pass again', () => {
    // Prepare
    const shape = {
      candidates: 1,
      workersPerCandidate: 2,
      compilationTargets: 0,
      endpointRounds: 4,
      compilationRounds: 0,
    };

    // Act
    const one = optimizationHistoryEvents(shape).total;
    const three = optimizationHistoryEvents({ ...shape, loadTestSegments: 3 }).total;

    // Assert: 2 × (Map 4 + 2 × 7 + Lambda 5 + Choice 2 + Pass 2).
    expect(three - one).toBe(54);
  });

  it('refuses load tests whose segments fill the history, naming the longest that fits', () => {
    // Prepare: 10-hour tests in 775 s segments (47 each), 10 candidates × 20 workers.
    const counts = { candidates: 10, workersPerCandidate: 20, compilationTargets: 1 };

    // Act
    const issue = historyIssue(
      { ...counts, loadTest: { testSeconds: 36_060, segmentSeconds: 775 } },
      TIMINGS,
    );

    // Assert
    expect(issue).toEqual({
      field: 'loadPlan.stepDurationSeconds',
      given:
        'load tests of 36060 s, each run as 47 worker invocations of 775 s, × 10 candidates with 20 workers: up to 74613 history events',
      expected: `load tests of at most 10075 s (13 segments) with these candidates and workers (shorter or fewer steps, a lower loadPlan.maxTotalSeconds, fewer workers or candidates): ${HISTORY_LIMIT}`,
    });
  });

  it('plans the longest load test the refusal names, and refuses one second more', () => {
    // Prepare
    const counts = { candidates: 10, workersPerCandidate: 20, compilationTargets: 1 };

    // Act
    const fits = historyIssue({ ...counts, loadTest: { testSeconds: 10_075, segmentSeconds: 775 } }, TIMINGS);
    const over = historyIssue({ ...counts, loadTest: { testSeconds: 10_076, segmentSeconds: 775 } }, TIMINGS);

    // Assert
    expect([fits, over?.field]).toEqual([undefined, 'loadPlan.stepDurationSeconds']);
  });

  it('refuses load tests that would outlast the 24-hour run timeout, naming the longest that fits', () => {
    // Prepare: 20-hour tests, 3 candidates 2 at a time, one target.
    const shape = {
      candidates: 3,
      maxConcurrentCandidates: 2,
      compilationTargets: 1,
      loadTest: { testSeconds: 72_060, segmentSeconds: 775 },
      loadTestReruns: 1,
    };

    // Act
    const issue = runTimeIssue(shape, TIMINGS);
    const longest = worstRunSeconds(
      { ...shape, loadTest: { ...shape.loadTest, testSeconds: 35_975 } },
      TIMINGS,
    );

    // Assert: 1,500 s of compilation, then 2 waves of 45 min + the test + 48 segment gaps + a
    // re-run's first segment + 2 min to delete: 35,975 s is the longest test within 86,400 s.
    expect(issue).toEqual({
      field: 'loadPlan.stepDurationSeconds',
      given:
        'load tests of 72060 s × 3 candidates, 2 at a time: the run may last 45.6 h (endpoints and compilation jobs taking their whole deadlines)',
      expected:
        'load tests of at most 35975 s with these candidates (shorter or fewer steps, a lower loadPlan.maxTotalSeconds, a higher maxConcurrentCandidates or fewer candidates), so that the run ends within its 24-hour execution timeout (Step Functions stops a run past it, with States.Timeout)',
    });
    expect(longest).toBe(86_400);
  });
});

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

describe('the ramp test in the limits', () => {
  const SHAPE = {
    candidates: 1,
    workersPerCandidate: 2,
    compilationTargets: 0,
    endpointRounds: 4,
    compilationRounds: 0,
  };

  it('counts the ramp in the fixed events: Passes, deploy, polls, policy, one segment, record, deregister, delete', () => {
    // Prepare
    const without = optimizationHistoryEvents(SHAPE);

    // Act
    const withRamp = optimizationHistoryEvents({ ...SHAPE, ramp: { workers: 3, endpointRounds: 5 } });

    // Assert: 2 Passes (2 each), deploy (5), 5 rounds of 9, apply (5), the Map (4) with 3 workers (7 each),
    // "Aggregate ramp load test" (5) and its Choice (2), then 3 Lambdas (5 each) and "Re-test the
    // ramp?" (2); nothing per candidate.
    expect([withRamp.fixed - without.fixed, withRamp.perCandidate - without.perCandidate]).toEqual([
      2 * 2 + 5 + 5 * 9 + 5 + (4 + 3 * 7 + 5 + 2) + 3 * 5 + 2,
      0,
    ]);
  });

  it('counts a re-test as a second ramp and its "Plan ramp re-test" Pass', () => {
    // Prepare
    const once = optimizationHistoryEvents({ ...SHAPE, ramp: { workers: 3, endpointRounds: 5 } });
    const without = optimizationHistoryEvents(SHAPE);

    // Act
    const twice = optimizationHistoryEvents({
      ...SHAPE,
      ramp: { workers: 3, endpointRounds: 5, attempts: 2 },
    });

    // Assert
    expect(twice.total - without.total).toBe(2 * (once.total - without.total) + 2);
  });

  it('counts each further ramp segment as its workers, the aggregation, the Choice and the Pass again', () => {
    // Prepare
    const one = optimizationHistoryEvents({ ...SHAPE, ramp: { workers: 3, endpointRounds: 5, segments: 1 } });

    // Act
    const three = optimizationHistoryEvents({
      ...SHAPE,
      ramp: { workers: 3, endpointRounds: 5, segments: 3 },
    });

    // Assert: 2 × (Map 4 + 3 × 7 + Lambda 5 + Choice 2 + Pass 2).
    expect(three.total - one.total).toBe(2 * (4 + 3 * 7 + 5 + 2 + 2));
  });

  it('counts one segment when the ramp does not say', () => {
    // Act
    const unsaid = optimizationHistoryEvents({ ...SHAPE, ramp: { workers: 3, endpointRounds: 5 } });
    const one = optimizationHistoryEvents({ ...SHAPE, ramp: { workers: 3, endpointRounds: 5, segments: 1 } });

    // Assert
    expect(unsaid.total).toBe(one.total);
  });

  it('adds the ramp to the worst duration: the endpoint deadline, its schedule with each segment’s minute, a scale-out to wait out and the deletion', () => {
    // Prepare
    const shape = {
      candidates: 1,
      maxConcurrentCandidates: 1,
      compilationTargets: 0,
      loadTest: { testSeconds: 100, segmentSeconds: 775 },
      loadTestReruns: 0,
    };
    const without = worstRunSeconds(shape, TIMINGS);

    // Act
    const withRamp = worstRunSeconds({ ...shape, ramp: { testSeconds: 1205, segments: 2 } }, TIMINGS);

    // Assert: 45 minutes to come into service, 1,205 s in 2 worker invocations (60 s each beyond
    // their schedule), a scale-out still running at the end (another 45 minutes), 2 minutes to delete.
    expect(withRamp - without).toBe(2700 + 1205 + 2 * 60 + 2700 + 120);
  });

  it('adds a re-test as a second ramp to the worst duration', () => {
    // Prepare
    const shape = {
      candidates: 1,
      maxConcurrentCandidates: 1,
      compilationTargets: 0,
      loadTest: { testSeconds: 100, segmentSeconds: 775 },
      loadTestReruns: 0,
    };
    const without = worstRunSeconds(shape, TIMINGS);

    // Act
    const withRetest = worstRunSeconds(
      { ...shape, ramp: { testSeconds: 1205, segments: 2, attempts: 2 } },
      TIMINGS,
    );

    // Assert
    expect(withRetest - without).toBe(2 * (2700 + 1205 + 2 * 60 + 2700 + 120));
  });
});

describe('async history', () => {
  it('counts 1,000 inputs on a deployed endpoint with a benchmark: under the budget unthrottled', () => {
    // Act: 24 rounds to come into service, 32 to scale in to zero; no input throttled.
    const events = asyncHistoryEvents({
      inputs: 1000,
      batchSize: 40,
      endpointRounds: 56,
      retriesPerInput: 0,
    });

    // Assert
    expect(events).toBe(11_164);
  });

  it('counts each input throttled five times (its Retry’s attempts), four events a retried wait', () => {
    // Act
    const events = asyncHistoryEvents({ inputs: 1000, batchSize: 40, endpointRounds: 56 });

    // Assert: 1,000 × 5 × 4 events more than unthrottled, past the 25,000 quota.
    expect(events).toBe(11_164 + 20_000);
  });

  it('refuses 1,000 inputs that could each be throttled five times, naming inputs and how many fit', () => {
    // Act
    const issue = asyncHistoryIssue({ inputs: 1000, batchSize: 40, endpointRounds: 56 });

    // Assert
    expect(issue).toEqual({
      field: 'inputs',
      given:
        '1000 inputs, up to 31164 history events (each input\'s "Invoke async inference" retried up to 5 times when InvokeEndpointAsync is throttled)',
      expected:
        "at most 763 inputs per run: a run may record at most 24000 history events (Step Functions' 25000 per execution, less 1000 kept for retries), and a full history cannot be caught (split the inputs over several runs)",
    });
  });
});

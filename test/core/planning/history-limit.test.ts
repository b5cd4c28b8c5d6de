import { describe, expect, it } from '@jest/globals';
import { DEFAULT_POLL_SCHEDULE } from '../../../core/contracts/execution-limits.js';
import { historyIssue, loadTestRerunsWithin } from '../../../core/planning/history-limit.js';
import { optimizationHistoryEvents, pollRoundsWithin } from '../../../core/planning/history-model.js';
import { runTimeIssue, worstRunSeconds } from '../../../core/planning/run-time-estimate.js';

const TIMINGS = {
  endpointDeadlineSeconds: 45 * 60,
  compilationDeadlineSeconds: 900 + 600,
  compilationMaxRuntimeSeconds: 900,
  endpointPolling: DEFAULT_POLL_SCHEDULE,
  compilationPolling: DEFAULT_POLL_SCHEDULE,
};

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
    // Prepare: 58 candidates × 10 workers re-run fit the budget only without the clean-up rounds.
    const counts = { candidates: 58, workersPerCandidate: 10, compilationTargets: 1 };
    const withoutCleanUp = optimizationHistoryEvents({
      ...counts,
      endpointRounds: pollRoundsWithin(TIMINGS.endpointDeadlineSeconds, DEFAULT_POLL_SCHEDULE),
      compilationRounds: pollRoundsWithin(TIMINGS.compilationDeadlineSeconds, DEFAULT_POLL_SCHEDULE),
      loadTestRuns: 2,
    }).total;

    // Act
    const reruns = loadTestRerunsWithin(counts, TIMINGS);

    // Assert
    expect([withoutCleanUp, reruns]).toEqual([23_797, 0]);
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
        '50 candidates (after expanding environmentRanges), each polled for up to 45 minutes: up to 43122 history events',
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
    expect(issue?.given).toBe('86400 s for each of 9 targets: up to 59494 history events');
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
        'load tests of 36060 s, each run as 47 worker invocations of 775 s, × 10 candidates with 20 workers: up to 74657 history events',
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

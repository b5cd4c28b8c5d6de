import { describe, expect, it } from '@jest/globals';
import {
  asyncHistoryEvents,
  asyncHistoryIssue,
  DEFAULT_POLL_SCHEDULE,
  historyIssue,
  loadTestRerunsWithin,
  pollRoundsWithin,
  stateSizeIssue,
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
        '50 candidates (after expanding environmentRanges), each polled for up to 45 minutes: up to 42908 history events',
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
    expect(issue?.given).toBe('86400 s for each of 9 targets: up to 59476 history events');
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

describe('async history', () => {
  it('keeps 1,000 inputs on a deployed endpoint with a benchmark under the budget', () => {
    // Act: 24 rounds to come into service, 32 to scale in to zero.
    const events = asyncHistoryEvents({ inputs: 1000, batchSize: 40, endpointRounds: 56 });

    // Assert
    expect(events).toBe(11_158);
  });

  it('refuses inputs whose worst-case history passes the budget, naming inputs', () => {
    // Act
    const issue = asyncHistoryIssue({ inputs: 2500, batchSize: 40, endpointRounds: 56 });

    // Assert
    expect(issue).toEqual({
      field: 'inputs',
      given: '2500 inputs, up to 26766 history events',
      expected:
        "at most 2234 inputs per run: a run may record at most 24000 history events (Step Functions' 25000 per execution, less 1000 kept for retries), and a full history cannot be caught (split the inputs over several runs)",
    });
  });
});

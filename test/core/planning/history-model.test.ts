import { describe, expect, it } from '@jest/globals';
import { DEFAULT_POLL_SCHEDULE } from '../../../core/contracts/execution-limits.js';
import { asyncHistoryIssue } from '../../../core/planning/history-limit.js';
import {
  asyncHistoryEvents,
  optimizationHistoryEvents,
  pollRoundsWithin,
} from '../../../core/planning/history-model.js';

describe('pollRoundsWithin', () => {
  it('counts 24 rounds for a 45-minute deadline polled at 30 s, 60 s, then every 2 minutes', () => {
    // Act
    const rounds = pollRoundsWithin(45 * 60, DEFAULT_POLL_SCHEDULE);

    // Assert: 30 + 60 + 22 × 120 = 2,730 s is the first total past 2,700 s.
    expect(rounds).toBe(24);
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

describe('the ramp test in the history', () => {
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
});

import { describe, expect, it } from '@jest/globals';
import { DEFAULT_POLL_SCHEDULE } from '../../../core/contracts/execution-limits.js';
import { worstRunSeconds } from '../../../core/planning/run-time-estimate.js';

const TIMINGS = {
  endpointDeadlineSeconds: 45 * 60,
  compilationDeadlineSeconds: 900 + 600,
  compilationMaxRuntimeSeconds: 900,
  endpointPolling: DEFAULT_POLL_SCHEDULE,
  compilationPolling: DEFAULT_POLL_SCHEDULE,
};

describe('the ramp test in the worst duration', () => {
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

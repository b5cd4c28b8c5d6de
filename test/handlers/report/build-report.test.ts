import { describe, expect, it } from '@jest/globals';
import { CandidateStatuses } from '../../../handlers/contracts/workflow-state.js';
import { buildReport, failureReasonOf } from '../../../handlers/report/build-report.js';
import { loadTestResult, plannedCandidate, runPlan, stepResult } from './support/sample-report.js';

// Both steps meet the sample SLA (p95 ≤ 20 ms, p99 ≤ 40 ms): the sustainable step is the second.
const steps = [
  stepResult({ load: 1, tps: 100, medianMs: 4, tailMs: 2 }),
  stepResult({ load: 4, tps: 360, medianMs: 8, tailMs: 4 }),
];

describe('buildReport', () => {
  it('prices a candidate from its endpoint’s creation to the end of its load test', () => {
    // Prepare: created 10 minutes before its 70-second test began, at $3.60 per hour.
    const result = loadTestResult(steps);
    const candidate = plannedCandidate('gpu', 'ml.g5.xlarge', 3.6);

    // Act
    const report = buildReport({
      plan: runPlan([candidate]),
      outcomes: [
        {
          candidateId: 'gpu',
          status: CandidateStatuses.measured,
          endpointCreatedEpochMs: result.startEpochMs - 600_000,
        },
      ],
      results: new Map([['gpu', result]]),
      measuredLocally: false,
      generatedAt: '2026-11-22T10:05:00Z',
    });

    // Assert: (600 s + 70 s) / 3600 × $3.60 = $0.67
    expect(report.candidates[0]?.runCostUsd).toBe(0.67);
    expect(report.runCost.endpointUsd).toBe(0.67);
  });

  it('computes cost per 1M inferences as $/h ÷ (sustainable TPS × 3600) × 10⁶', () => {
    // Act
    const report = buildReport({
      plan: runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)]),
      outcomes: [{ candidateId: 'cpu', status: CandidateStatuses.measured }],
      results: new Map([['cpu', loadTestResult(steps)]]),
      measuredLocally: false,
      generatedAt: '2026-11-22T10:05:00Z',
    });

    // Assert: 0.204 / (360 × 3600) × 10⁶ = 0.1574
    expect(report.candidates[0]?.costPer1MUsd).toBe(0.1574);
  });

  it('reads the reason of a Lambda error from its Cause document', () => {
    // Act
    const reason = failureReasonOf({
      Error: 'QuotaExceededError',
      Cause: JSON.stringify({ errorType: 'QuotaExceededError', errorMessage: 'ml.g5.xlarge: 0 of 0 left' }),
    });

    // Assert
    expect(reason).toBe('QuotaExceededError: ml.g5.xlarge: 0 of 0 left');
  });
});

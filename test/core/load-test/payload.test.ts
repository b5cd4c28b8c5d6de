import { describe, expect, it } from '@jest/globals';
import {
  STATE_PAYLOAD_LIMIT_BYTES,
  fitsInStatePayload,
  serializedSizeBytes,
  summarizeForState,
  toCompactJson,
} from '../../../core/load-test/payload.js';
import type { LoadTestResult } from '../../../core/load-test/results.js';

const RESULT: LoadTestResult = {
  schemaVersion: 1,
  model: 'closed',
  workers: 1,
  startEpochMs: 0,
  finishedEpochMs: 1,
  steps: [
    {
      load: 1,
      loadKind: 'concurrency',
      tps: 10,
      errorRate: 0,
      latencyMs: { p50: 1, p90: 1, p95: 1, p99: 1, max: 1 },
      requests: 10,
      errors: { modelError: 1, throttled: 0, timeout: 0, clientError: 0 },
      errorSamples: [{ kind: 'model-error', statusCode: 500, message: 'boom' }],
      late: 0,
      dropped: 0,
      windowSeconds: 1,
      workers: 1,
      meetsSla: true,
      slaBreaches: [],
      histogram: 'HISTFAAAAB14nJNpmSzMwMDACMXMDBAAYjMoH3ZjgPMBQQsCeg==',
    },
  ],
  sustainableTps: 10,
  sustainableStep: 1,
  meetsTargetTps: null,
  stoppedBecause: 'completed',
  stopDetail: 'all 1 steps ran',
};

describe('state payload helpers', () => {
  it('serialize without indentation', () => {
    expect(toCompactJson({ a: [1, 2] })).toBe('{"a":[1,2]}');
  });

  it('count UTF-8 bytes, as Step Functions does, not characters', () => {
    expect(serializedSizeBytes('é')).toBe(4); // "é": two quotes and a two-byte character
  });

  it('say whether a value fits beside the rest of the state', () => {
    const size = serializedSizeBytes(RESULT);
    expect(fitsInStatePayload(RESULT, STATE_PAYLOAD_LIMIT_BYTES - size)).toBe(true);
    expect(fitsInStatePayload(RESULT, STATE_PAYLOAD_LIMIT_BYTES - size + 1)).toBe(false);
  });

  it('summarize a result without histograms and error samples', () => {
    // Act
    const summary = summarizeForState(RESULT);

    // Assert
    expect(summary.steps[0]).not.toHaveProperty('histogram');
    expect(summary.steps[0]).not.toHaveProperty('errorSamples');
    expect(summary.steps[0]?.errors.modelError).toBe(1);
    expect(summary.sustainableTps).toBe(10);
  });
});

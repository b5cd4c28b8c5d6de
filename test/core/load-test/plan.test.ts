import { describe, expect, it } from '@jest/globals';
import { type InputIssue, InvalidRunInputError } from '../../../core/contracts/errors.js';
import { connectionsPerWorker, workerShare } from '../../../core/load-test/plan.js';
import { loadPlanSchema, parseLoadPlan } from '../../../core/contracts/load-plan.js';
import { parseSla, slaSchema } from '../../../core/contracts/latency-sla.js';

function messagesOf(result: { success: boolean; error?: { issues: { message: string }[] } }): string[] {
  return result.error?.issues.map((issue) => issue.message) ?? [];
}

/** The issues parseLoadPlan reports for `input`, or none. */
function planIssues(input: unknown): readonly InputIssue[] {
  try {
    parseLoadPlan(input);
    return [];
  } catch (error) {
    if (error instanceof InvalidRunInputError) return error.issues;
    throw error;
  }
}

describe('load plan', () => {
  it('fills in the documented defaults', () => {
    // Act
    const plan = loadPlanSchema.parse({ steps: [1, 4, 16, 32] });

    // Assert
    expect(plan).toEqual({
      model: 'closed',
      steps: [1, 4, 16, 32],
      warmupSeconds: 5,
      stepDurationSeconds: 30,
      workers: 1,
      maxTotalSeconds: 900,
      requestTimeoutMs: 65_000,
      stopAtPlateau: true,
      plateauGain: 1.05,
      maxInFlight: 256,
      lateToleranceMs: 10,
    });
  });

  it('fails when steps are not strictly ascending', () => {
    expect(planIssues({ steps: [1, 8, 4] })).toEqual([
      { field: 'loadPlan.steps', given: '[1,8,4]', expected: 'strictly ascending steps' },
    ]);
  });

  it('fails when a closed-model step is not a whole number of requests in flight', () => {
    expect(planIssues({ steps: [1, 2.5] })).toEqual([
      {
        field: 'loadPlan.steps[1]',
        given: '2.5',
        expected: 'a whole number 1..10000: closed-model steps are in-flight request counts',
      },
    ]);
  });

  it('accepts fractional arrival rates for the open model', () => {
    expect(loadPlanSchema.parse({ model: 'open', steps: [0.5, 2.5] }).steps).toEqual([0.5, 2.5]);
  });

  it("fails when the request timeout does not exceed SageMaker's 60 s invocation limit", () => {
    expect(messagesOf(loadPlanSchema.safeParse({ steps: [1], requestTimeoutMs: 60_000 }))).toEqual([
      "more than SageMaker's 60000 ms invocation limit, so a slow model is reported by SageMaker as a ModelError instead of being cut by the client",
    ]);
  });

  it('fails when a request cap leaves a worker without a single request', () => {
    expect(planIssues({ steps: [8], workers: 4, maxRequestsPerStep: 3 })).toEqual([
      {
        field: 'loadPlan.maxRequestsPerStep',
        given: '3',
        expected: 'at least one request per worker (workers: 4)',
      },
    ]);
  });

  it('fails with the field, what was given and what was expected', () => {
    // Act
    const parse = () => parseLoadPlan({ steps: [1, 'four'] });

    // Assert
    expect(parse).toThrow(InvalidRunInputError);
    try {
      parse();
    } catch (error) {
      expect((error as InvalidRunInputError).issues).toEqual([
        {
          field: 'loadPlan.steps[1]',
          given: '"four"',
          expected: 'number',
        },
      ]);
    }
  });

  it("deals whole loads out so that the workers' parts add up exactly", () => {
    // Act
    const parts = [0, 1, 2].map((index) => workerShare(16, 3, index, true));

    // Assert
    expect(parts).toEqual([6, 5, 5]);
    expect(workerShare(100, 3, 2, false)).toBeCloseTo(33.333, 3);
  });

  it('asks for as many connections as the largest per-worker concurrency', () => {
    expect(connectionsPerWorker(loadPlanSchema.parse({ steps: [1, 64, 200], workers: 3 }))).toBe(67);
    expect(
      connectionsPerWorker(loadPlanSchema.parse({ model: 'open', steps: [500], maxInFlight: 300 })),
    ).toBe(300);
  });
});

describe('latency SLA', () => {
  it('defaults the error budget to 1 %', () => {
    expect(slaSchema.parse({ p99LatencyMs: 250 })).toEqual({ p99LatencyMs: 250, maxErrorRate: 0.01 });
  });

  it('fails when no latency bound is given', () => {
    // Act
    const parse = () => parseSla({ maxErrorRate: 0.05, targetTps: 100 });

    // Assert
    expect(parse).toThrow(
      'Invalid run input: sla.p95LatencyMs: got nothing, expected at least one latency bound: p95LatencyMs, p99LatencyMs, or for streamed responses ttftP95Ms or itlP95Ms (milliseconds)',
    );
  });
});

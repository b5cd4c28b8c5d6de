import { describe, expect, it } from '@jest/globals';
import { CandidateStatuses } from '../../../core/contracts/optimization-state.js';
import { failureReasonOf } from '../../../core/contracts/caught-error.js';
import type { StepResult } from '../../../core/load-test/index.js';
import { buildReport } from '../../../core/report/build-report.js';
import {
  loadTestResult,
  plannedCandidate,
  runPlan,
  stepResult,
} from '../../../bench/fixtures/sample-report.js';

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

  it('prices an existing endpoint at the instance count it was tested with, keeping the run input’s price of its type', () => {
    // Prepare: the input priced ml.c5.xlarge at $0.25/h and said nothing of the count (1 planned).
    const existing = plannedCandidate('existing', 'ml.c5.xlarge', 0.25, {
      kind: 'existing',
      endpointName: 'prod-resnet',
      priceSource: 'run-input',
    });

    // Act
    const report = buildReport({
      plan: runPlan([existing], {
        existingEndpoint: { endpointName: 'prod-resnet', instanceType: 'ml.c5.xlarge' },
      }),
      outcomes: [
        {
          candidateId: 'existing',
          status: CandidateStatuses.measured,
          instanceType: 'ml.c5.xlarge',
          instanceCount: 3,
          variantName: 'blue',
        },
      ],
      results: new Map([['existing', loadTestResult(steps)]]),
      measuredLocally: false,
      generatedAt: '2026-11-22T10:05:00Z',
    });

    // Assert: 3 × $0.25 = $0.75/h; 0.75 / (360 × 3600) × 10⁶ = 0.5787; the input named no count.
    expect(report.candidates[0]).toMatchObject({
      instanceCount: 3,
      costPerHourUsd: 0.75,
      priceSource: 'run-input',
      costPer1MUsd: 0.5787,
    });
    expect(report.candidates[0]?.configurationNote).toBeUndefined();
    expect(report.recommendation?.instanceCount).toBe(3);
  });

  it('keeps the planned count of an endpoint whose tested count is zero', () => {
    // Act
    const report = buildReport({
      plan: runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204, { initialInstanceCount: 2 })]),
      outcomes: [
        {
          candidateId: 'cpu',
          status: CandidateStatuses.measured,
          instanceType: 'ml.c5.xlarge',
          instanceCount: 0,
        },
      ],
      results: new Map([['cpu', loadTestResult(steps)]]),
      measuredLocally: false,
      generatedAt: '2026-11-22T10:05:00Z',
    });

    // Assert
    expect(report.candidates[0]).toMatchObject({ instanceCount: 2, costPerHourUsd: 0.408 });
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

describe('buildReport of streamed responses', () => {
  /** The step at load 4 streamed 32 output tokens per request; its histograms stay in the result file. */
  const [first, second] = steps;
  if (first === undefined || second === undefined) throw new Error('two sample steps expected');
  const streamed: StepResult[] = [
    first,
    {
      ...second,
      stream: {
        format: 'tgi',
        ttftMs: { p50: 20, p90: 30, p95: 35, p99: 40, max: 41 },
        itlMs: { p50: 1.5, p90: 2, p95: 2.5, p99: 3, max: 4 },
        outputTokens: 11_520,
        outputTokensPerSecond: 11_520,
        outputTokensPerRequest: 32,
        outputTokenSource: 'server',
        withoutToken: 0,
        ttftHistogram: 'HISTFAAAA',
        itlHistogram: 'HISTFAAAB',
      },
    },
  ];

  it('reports TTFT, ITL and output tokens per step without the histograms, and the cost per 1M output tokens', () => {
    // Act
    const report = buildReport({
      plan: runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)]),
      outcomes: [{ candidateId: 'cpu', status: CandidateStatuses.measured }],
      results: new Map([['cpu', loadTestResult(streamed)]]),
      measuredLocally: false,
      generatedAt: '2026-11-22T10:05:00Z',
    });

    // Assert: 0.204 / (360 TPS × 32 tokens × 3600) × 10⁶ = 0.0049
    const candidate = report.candidates[0];
    expect(candidate?.steps[1]?.stream).toEqual({
      format: 'tgi',
      ttftMs: { p50: 20, p90: 30, p95: 35, p99: 40, max: 41 },
      itlMs: { p50: 1.5, p90: 2, p95: 2.5, p99: 3, max: 4 },
      outputTokens: 11_520,
      outputTokensPerSecond: 11_520,
      outputTokensPerRequest: 32,
      outputTokenSource: 'server',
      withoutToken: 0,
    });
    expect(candidate?.steps[0]?.stream).toBeUndefined();
    expect(candidate?.costPer1MOutputTokensUsd).toBe(0.0049);
  });

  it('ranks on the cost per 1M output tokens under that objective, not on the cost per inference', () => {
    // Prepare: the dearer instance per inference writes 4 times the tokens per request.
    const tokens = (perRequest: number): StepResult[] =>
      streamed.map((step) =>
        step.stream === undefined
          ? step
          : {
              ...step,
              stream: {
                ...step.stream,
                outputTokensPerRequest: perRequest,
                outputTokensPerSecond: perRequest * step.tps,
              },
            },
      );

    // Act
    const report = buildReport({
      plan: runPlan(
        [plannedCandidate('short', 'ml.c5.xlarge', 0.204), plannedCandidate('long', 'ml.c5.2xlarge', 0.408)],
        { objective: 'lowest-cost-per-1m-output-tokens' },
      ),
      outcomes: [
        { candidateId: 'short', status: CandidateStatuses.measured },
        { candidateId: 'long', status: CandidateStatuses.measured },
      ],
      results: new Map([
        ['short', loadTestResult(tokens(8))],
        ['long', loadTestResult(tokens(32))],
      ]),
      measuredLocally: false,
      generatedAt: '2026-11-22T10:05:00Z',
    });

    // Assert: long 0.408 / (360 × 32 × 3600) × 10⁶ = $0.0098 < short 0.204 / (360 × 8 × 3600) × 10⁶ = $0.0197.
    expect(report.candidates.map((c) => [c.id, c.verdict, c.costPer1MOutputTokensUsd])).toEqual([
      ['short', 'runner-up', 0.0197],
      ['long', 'recommended', 0.0098],
    ]);
    expect(report.recommendation?.why).toMatch(/^≤ \$0\.0098 per 1M output tokens, best of 2 candidate/);
  });
});

describe('buildReport with a target no endpoint here can carry', () => {
  it('fails when targetTps needs more instances than an endpoint may have: no count is said to carry it', () => {
    // Prepare: 360 TPS measured on one instance; 1e9 TPS needs millions, this machine runs 8 at most.
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)]);
    const endpointLimit = { instances: 8, name: 'this machine’s model-server budget', fix: 'size it on AWS' };

    // Act
    const report = buildReport({
      plan: { ...plan, sla: { ...plan.sla, targetTps: 1e9 } },
      outcomes: [{ candidateId: 'cpu', status: CandidateStatuses.measured }],
      results: new Map([['cpu', loadTestResult(steps)]]),
      measuredLocally: true,
      endpointLimit,
      generatedAt: '2026-11-22T10:05:00Z',
    });

    // Assert
    expect(report.candidates[0]?.atTarget?.canServe).toBe(false);
    expect(report.candidates[0]?.instancesForTargetTps).toBeUndefined();
    expect(report.recommendation?.instancesForTargetTps).toBeUndefined();
    expect(report.serveTarget?.candidateId).toBeUndefined();
    expect(report.serveTarget?.provenNote).toContain(
      'more than the 8 instances of this machine’s model-server budget',
    );
  });
});

import { describe, expect, it } from '@jest/globals';
import type { RunPlan } from '../../../core/contracts/optimization-state.js';
import {
  plannedCandidate,
  reportFrom,
  SAMPLE_SLA,
  type SampleEntry,
} from '../../../bench/fixtures/sample-report.js';

/**
 * Two candidates whose order flips between the objectives: the xlarge is cheaper per 1M at its own
 * capacity, the large is cheaper at 600 TPS once both are rounded up to whole instances.
 */
const LARGE: SampleEntry = {
  candidate: plannedCandidate('large', 'ml.c5.large', 0.102),
  steps: [
    { load: 1, tps: 60, medianMs: 10, tailMs: 2 },
    { load: 2, tps: 100, medianMs: 12, tailMs: 2 },
    { load: 4, tps: 105, medianMs: 30, tailMs: 20 },
  ],
};
const XLARGE: SampleEntry = {
  candidate: plannedCandidate('xlarge', 'ml.c5.xlarge', 0.204),
  steps: [
    { load: 1, tps: 110, medianMs: 8, tailMs: 2 },
    { load: 2, tps: 210, medianMs: 9, tailMs: 2 },
    { load: 4, tps: 215, medianMs: 30, tailMs: 20 },
  ],
};

function targetPlan(extra: Partial<RunPlan> = {}): Partial<RunPlan> {
  return { sla: { ...SAMPLE_SLA, targetTps: 600 }, objective: 'lowest-cost-at-target', ...extra };
}

describe('buildReport with a target TPS', () => {
  it('ranks on $/h at the target under lowest-cost-at-target', () => {
    // Act
    const report = reportFrom([LARGE, XLARGE], { plan: targetPlan() });

    // Assert: large ⌈600 ÷ 70⌉ = 9 × $0.102 = $0.918/h; xlarge ⌈600 ÷ 147⌉ = 5 × $0.204 = $1.02/h
    expect(report.recommendation?.candidateId).toBe('large');
    expect(report.recommendation?.why).toBe(
      '$0.9180/h for 9 instances at 600 TPS, best of 2 candidate(s) that met the SLA',
    );
  });

  it('still ranks on one instance’s cost per 1M under lowest-cost-per-1m', () => {
    // Act
    const report = reportFrom([LARGE, XLARGE], { plan: targetPlan({ objective: 'lowest-cost-per-1m' }) });

    // Assert: $0.204 ÷ (210 × 3600) × 10⁶ = $0.2698 beats $0.102 ÷ (100 × 3600) × 10⁶ = $0.2833
    expect(report.recommendation?.candidateId).toBe('xlarge');
  });

  it('gives every candidate that met the SLA its count and cost at the target', () => {
    // Act
    const report = reportFrom([LARGE, XLARGE], { plan: targetPlan() });

    // Assert
    expect(report.candidates.map((c) => [c.id, c.atTarget?.instances, c.atTarget?.usdPerHour])).toEqual([
      ['large', 9, 0.918],
      ['xlarge', 5, 1.02],
    ]);
  });

  it('answers "serve 600 TPS" with the count, the cost at the target and the policy', () => {
    // Act
    const report = reportFrom([LARGE, XLARGE], { plan: targetPlan(), measuredLocally: false });

    // Assert: $0.918 ÷ (600 × 3600) × 10⁶ = $0.425 per 1M; policy target 100 × 60 × 0.7 = 4200
    const st = report.serveTarget;
    expect(st?.candidateId).toBe('large');
    expect(st?.atTarget?.instances).toBe(9);
    expect(st?.atTarget?.costPer1MUsd).toBe(0.425);
    expect(st?.policy?.registerScalableTarget).toEqual({
      ServiceNamespace: 'sagemaker',
      ResourceId: 'endpoint/mso-run-ab12cd34-ep-large/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      MinCapacity: 2,
      MaxCapacity: 9,
    });
    expect(st?.policy?.targetInvocationsPerInstance).toBe(4200);
    expect(st?.provenNote).toBe(
      'not proven: measured on 1 instance; the count and the policy are arithmetic from that measurement, not yet tested at the target load',
    );
    expect(st?.warnings).toEqual([]);
  });

  it('sizes the policy’s maximum from the stated peak', () => {
    // Act
    const report = reportFrom([LARGE, XLARGE], {
      plan: targetPlan({
        scaling: { headroom: 0.7, peakTps: 1000, scaleInCooldownSeconds: 300, scaleOutCooldownSeconds: 60 },
      }),
    });

    // Assert: ⌈1000 ÷ 70⌉ = 15
    expect(report.serveTarget?.policy?.maxCapacity).toBe(15);
  });

  it('serves the target with the next candidate when the account’s quota cannot hold the cheaper one’s count', () => {
    // Act: large needs 9 but the account may run 5
    const report = reportFrom([LARGE, XLARGE], {
      plan: targetPlan({ instanceQuotas: { 'ml.c5.large': 5 } }),
    });

    // Assert
    expect([report.recommendation?.candidateId, report.serveTarget?.candidateId]).toEqual([
      'xlarge',
      'xlarge',
    ]);
  });

  it('caps the policy’s maximum at the account’s quota', () => {
    // Act: the 1000 TPS peak needs 15 large, the account may run 12
    const report = reportFrom([LARGE, XLARGE], {
      plan: targetPlan({
        instanceQuotas: { 'ml.c5.large': 12 },
        scaling: { headroom: 0.7, peakTps: 1000, scaleInCooldownSeconds: 300, scaleOutCooldownSeconds: 60 },
      }),
    });

    // Assert
    expect(report.serveTarget?.policy?.registerScalableTarget.MaxCapacity).toBe(12);
  });

  it('warns that a single instance has no Availability Zone redundancy when minInstances is 1', () => {
    // Act
    const report = reportFrom([LARGE], {
      plan: targetPlan({ availability: { minInstances: 1 } }),
      measuredLocally: false,
    });

    // Assert
    expect(report.serveTarget?.warnings).toEqual([
      'availability.minInstances is 1: a single instance has no Availability Zone redundancy; SageMaker ' +
        'recommends more than one instance per production endpoint, spread over Availability Zones ' +
        '(https://docs.aws.amazon.com/sagemaker/latest/dg/deployment-best-practices.html)',
    ]);
  });

  it('refuses a serverless candidate whose concurrency the target exceeds, and serves it on instances', () => {
    // Prepare: 12.1 ms mean latency × 600 TPS = 8 in flight, above a maxConcurrency of 2
    const serverless: SampleEntry = {
      candidate: {
        ...plannedCandidate('sls', 'ml.c5.large', 0.102),
        kind: 'serverless',
        serverless: { memorySizeMb: 1024, maxConcurrency: 2 },
      },
      steps: [{ load: 1, tps: 80, medianMs: 12, tailMs: 2 }],
    };

    // Act
    const report = reportFrom([serverless, XLARGE], { plan: targetPlan() });

    // Assert
    const sls = report.candidates.find((c) => c.id === 'sls');
    expect(sls?.atTarget?.canServe).toBe(false);
    expect(sls?.reason).toBe(
      'met the SLA but cannot carry 600 TPS (600 TPS × 12.1 ms mean latency keeps 8 requests in flight; ' +
        'more than its maxConcurrency of 2: raise it to 8 and test again) vs $1.0200/h for 5 instances at 600 TPS ' +
        'for xlarge; not saturated: every step met the SLA up to load 1 (the load plan ended), so the capacity ' +
        'is at least 80 TPS; add higher load steps to find it',
    );
    expect(report.serveTarget?.candidateId).toBe('xlarge');
  });

  it('has no serve-target section when the SLA names no target', () => {
    // Act
    const report = reportFrom([LARGE], { plan: { sla: { ...SAMPLE_SLA, targetTps: undefined } } });

    // Assert
    expect(report.serveTarget).toBeUndefined();
  });
});

describe('serveTargetSection', () => {
  it('is absent when no candidate met the SLA', () => {
    // Act
    const report = reportFrom(
      [
        {
          candidate: plannedCandidate('slow', 'ml.c5.large', 0.102),
          steps: [{ load: 1, tps: 10, medianMs: 60, tailMs: 20 }],
        },
      ],
      { plan: targetPlan() },
    );

    // Assert
    expect(report.serveTarget).toBeUndefined();
  });

  it('names why each candidate cannot carry the target when none can', () => {
    // Prepare: a serverless candidate whose maxConcurrency of 2 is below the 8 the target keeps in flight
    const serverless: SampleEntry = {
      candidate: {
        ...plannedCandidate('sls', 'ml.c5.large', 0.102),
        kind: 'serverless',
        serverless: { memorySizeMb: 1024, maxConcurrency: 2 },
      },
      steps: [{ load: 1, tps: 80, medianMs: 12, tailMs: 2 }],
    };

    // Act
    const report = reportFrom([serverless], { plan: targetPlan(), measuredLocally: false });

    // Assert
    expect([report.serveTarget?.candidateId, report.serveTarget?.provenNote]).toEqual([
      undefined,
      'nothing to prove: sls: 600 TPS × 12.1 ms mean latency keeps 8 requests in flight; more than its ' +
        'maxConcurrency of 2: raise it to 8 and test again',
    ]);
  });
});

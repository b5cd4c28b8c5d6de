import { describe, expect, it } from '@jest/globals';
import { resourceName } from '../../../core/contracts/names.js';
import {
  correctedInstances,
  correctedRequest,
  judgeProof,
  proofCandidate,
  proofDecision,
  proofLoadPlan,
  proofSkipReason,
  proofWorkers,
} from '../../../core/serving/prove-target.js';
import { plannedCandidate, SAMPLE_LOAD_PLAN, stepResult } from '../../../bench/fixtures/sample-report.js';
import type { LoadPlan } from '../../../core/contracts/load-plan.js';

const WINNER = plannedCandidate('c5-large', 'ml.c5.large', 0.102);
const PLAN = {
  runId: 'nightly-2026-11-22',
  loadPlan: SAMPLE_LOAD_PLAN,
  sla: { p95LatencyMs: 20, maxErrorRate: 0.01, targetTps: 600 },
  prove: { enabled: true, workers: 1 },
};

describe('proofWorkers', () => {
  it('keeps the plan’s workers when one worker can sign the target’s requests', () => {
    expect(proofWorkers({ workers: 2 }, 600)).toBe(2);
  });

  it('adds workers for a target above one worker’s signed-request ceiling (1,300/s)', () => {
    expect(proofWorkers({ workers: 1 }, 5000)).toBe(4);
  });

  it('never asks for more than the 40 workers one inline Map starts at once', () => {
    expect(proofWorkers({ workers: 1 }, 100_000)).toBe(40);
  });
});

describe('proofLoadPlan', () => {
  it('is one open-model step at the target with the plan’s warm-up and window, no extension, no rounds', () => {
    // Prepare
    const plan: LoadPlan = { ...SAMPLE_LOAD_PLAN, extendUntilSaturated: true, maxLoad: 64 };

    // Act
    const proof = proofLoadPlan(plan, 600, 3);

    // Assert
    expect(proof).toEqual({
      ...SAMPLE_LOAD_PLAN,
      model: 'open',
      steps: [600],
      workers: 3,
      stopAtPlateau: false,
      kneeProbes: 0,
      repeats: 1,
    });
  });
});

describe('proofSkipReason', () => {
  it('refuses a step longer than one load worker invocation, naming both lengths', () => {
    expect(proofSkipReason({ ...SAMPLE_LOAD_PLAN, stepDurationSeconds: 900 }, 840)).toBe(
      'steps of 905 s (warmupSeconds + stepDurationSeconds) are longer than one load worker invocation (840 s), and the proof runs as one; shorten the steps to prove the target',
    );
  });

  it('accepts a step that fits one invocation', () => {
    expect(proofSkipReason(SAMPLE_LOAD_PLAN, 840)).toBeUndefined();
  });
});

describe('proofCandidate', () => {
  it('is the winner with the computed count under names of its own, derived from the run id', () => {
    expect(proofCandidate('nightly-2026-11-22', WINNER, 4)).toEqual({
      ...WINNER,
      id: 'c5-large-prove',
      initialInstanceCount: 4,
      proofOf: 'c5-large',
      modelName: resourceName('nightly-2026-11-22', 'model', 'c5-large-prove'),
      endpointConfigName: resourceName('nightly-2026-11-22', 'endpoint-config', 'c5-large-prove'),
      endpointName: resourceName('nightly-2026-11-22', 'endpoint', 'c5-large-prove'),
      estimatedCostUsd: 0,
    });
  });
});

describe('proofCandidate: routing', () => {
  it('keeps the winner’s routingStrategy, so the proof routes as the candidate was measured', () => {
    // Prepare
    const routed = { ...WINNER, routingStrategy: 'LEAST_OUTSTANDING_REQUESTS' as const };

    // Act
    const proof = proofCandidate('nightly-2026-11-22', routed, 4);

    // Assert
    expect(proof.routingStrategy).toBe('LEAST_OUTSTANDING_REQUESTS');
  });
});

describe('judgeProof', () => {
  const request = { targetTps: 600, instances: 4 };
  const SLA = { p95LatencyMs: 20, maxErrorRate: 0.01 };

  it('holds when the merged step meets the SLA and carries the target', () => {
    // Prepare: 598 TPS (within 95 % of 600), p95 under 20 ms.
    const step = stepResult({ load: 600, tps: 598, medianMs: 8, tailMs: 2 }, SLA);

    // Act
    const verdict = judgeProof(step, request, '4 × ml.c5.large');

    // Assert
    expect(verdict).toEqual({
      status: 'held',
      note: `proven: 4 × ml.c5.large held p95 ${Math.round(step.latencyMs.p95 * 10) / 10} ms at 598 TPS (target 600)`,
    });
  });

  it('is not held when the p95 breaches the SLA, with the breach and what to do', () => {
    // Prepare
    const step = stepResult({ load: 600, tps: 600, medianMs: 30, tailMs: 10 }, SLA);

    // Act
    const verdict = judgeProof(step, request, '4 × ml.c5.large');

    // Assert
    expect(verdict).toEqual({
      status: 'not-held',
      note:
        `not held: 4 × ml.c5.large at 600 TPS: ${step.slaBreaches.join('; ')}; raise the count ` +
        '(availability.minInstances or a lower scaling.headroom), or pick the next candidate of the ranking, and run again',
    });
  });

  it('is not held when the latency is met but less than 95 % of the target was served', () => {
    // Prepare
    const step = stepResult({ load: 600, tps: 500, medianMs: 8, tailMs: 2 }, SLA);

    // Act
    const verdict = judgeProof(step, request, '4 × ml.c5.large');

    // Assert
    expect(verdict.status).toBe('not-held');
    expect(verdict.note).toContain('500 TPS served, below 570 (95 % of the target)');
  });

  it('fails when no whole step was measured', () => {
    expect(judgeProof(undefined, request, '4 × ml.c5.large')).toEqual({
      status: 'failed',
      note: 'not proven: the proof measured no whole step at 600 TPS',
    });
  });
});

describe('proofDecision', () => {
  const chosen = { candidate: WINNER, instances: 4 };

  it('asks for the winner at its count with the target’s load', () => {
    expect(proofDecision(PLAN, chosen)).toEqual({
      request: {
        targetTps: 600,
        instances: 4,
        candidate: proofCandidate(PLAN.runId, WINNER, 4),
        loadPlan: proofLoadPlan(SAMPLE_LOAD_PLAN, 600, 1),
      },
    });
  });

  it('skips the proof when prove.enabled is false', () => {
    expect(proofDecision({ ...PLAN, prove: { enabled: false, workers: 1 } }, chosen)).toEqual({
      skipped: 'off (prove.enabled is false)',
    });
  });

  it('skips the proof when the planner found it cannot run, with its reason', () => {
    expect(
      proofDecision({ ...PLAN, prove: { enabled: true, workers: 1, skipReason: 'steps too long' } }, chosen),
    ).toEqual({
      skipped: 'steps too long',
    });
  });

  it('skips an existing endpoint: the run never redeploys the user’s endpoint', () => {
    const existing = plannedCandidate('existing', 'ml.c5.large', 0.102, { kind: 'existing' });
    expect(proofDecision(PLAN, { candidate: existing, instances: 4 })).toEqual({
      skipped: 'existing is your endpoint: the run does not redeploy it with another count',
    });
  });

  it('skips a serverless candidate: it has no count', () => {
    const serverless = plannedCandidate('sls', 'ml.c5.large', 0.102, { kind: 'serverless' });
    expect(proofDecision(PLAN, { candidate: serverless, instances: undefined })).toEqual({
      skipped: 'sls is serverless: it has no instance count to prove',
    });
  });

  it('skips when no candidate can carry the target', () => {
    expect(proofDecision(PLAN, undefined)).toEqual({
      skipped: 'no candidate that met the SLA can carry the target',
    });
  });
});

describe('correctedInstances', () => {
  it('adds one instance when the latency breached at the target rate', () => {
    expect(correctedInstances({ instances: 2, targetTps: 600 }, 598, undefined)).toBe(3);
  });

  it('scales the count by the target over what was served when far less was served', () => {
    // 4 × 600 ÷ 300 = 8.
    expect(correctedInstances({ instances: 4, targetTps: 600 }, 300, undefined)).toBe(8);
  });

  it('stops at the account’s quota for the type', () => {
    expect(correctedInstances({ instances: 4, targetTps: 600 }, 300, 6)).toBe(6);
  });

  it('gives nothing when the quota leaves no larger count', () => {
    expect(correctedInstances({ instances: 4, targetTps: 600 }, 300, 4)).toBeUndefined();
  });
});

describe('correctedRequest', () => {
  it('is attempt 2 of the same winner, under names of its own (the first may still be deleting)', () => {
    // Prepare
    const first = proofDecision(PLAN, { candidate: WINNER, instances: 4 });
    if (!('request' in first)) throw new Error('no request');

    // Act
    const corrected = correctedRequest(PLAN.runId, first.request, 6);

    // Assert
    expect(corrected).toEqual({
      ...first.request,
      instances: 6,
      attempt: 2,
      candidate: {
        ...WINNER,
        id: 'c5-large-prove-2',
        initialInstanceCount: 6,
        proofOf: 'c5-large',
        modelName: resourceName(PLAN.runId, 'model', 'c5-large-prove-2'),
        endpointConfigName: resourceName(PLAN.runId, 'endpoint-config', 'c5-large-prove-2'),
        endpointName: resourceName(PLAN.runId, 'endpoint', 'c5-large-prove-2'),
        estimatedCostUsd: 0,
      },
    });
  });
});

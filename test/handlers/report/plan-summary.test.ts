import { describe, expect, it } from '@jest/globals';
import { formatPlan } from '../../../handlers/report/plan-summary.js';
import { plannedCandidate, runPlan, SAMPLE_LOAD_PLAN } from './support/sample-report.js';

describe('formatPlan', () => {
  it('lists the extension steps and counts them in the load test time', () => {
    // Prepare: 1, 2, 4, 8, 16 then 32, 64, 128 (8 × 16): 8 steps of 35 s.
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      loadPlan: { ...SAMPLE_LOAD_PLAN, extendUntilSaturated: true },
    });

    // Act
    const text = formatPlan({ plan, runCommand: 'npm start -- --input in.json' });

    // Assert
    expect(text.split('\n')).toContain(
      'Load plan: closed model, steps 1, 2, 4, 8, 16 (then 32, 64, 128 while every step meets the SLA), 5 s warm-up + 30 s per step, 1 worker(s), up to 3 knee probe(s), sustainable load measured 2 times: at most 420 s per candidate; 1 candidate(s), 2 at a time: about 420 s of load tests',
    );
  });

  it("prints the planner's warnings under the load plan", () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      warnings: ['loadPlan.workers: set loadPlan.workers to at least 3.'],
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    const loadPlanLine = lines.findIndex((line) => line.startsWith('Load plan: '));
    expect(lines[loadPlanLine + 1]).toBe('  warning: loadPlan.workers: set loadPlan.workers to at least 3.');
  });

  it('says the proof runs after "Recommend" with a target, and with how many workers', () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      prove: { enabled: true, workers: 4 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines).toContain(
      'Proof at 1000 TPS: after "Recommend", the chosen candidate deployed with its computed count, one open-model step of 5 s warm-up + 30 s by 4 worker(s), then deleted',
    );
  });

  it('says the proof is off when the input turns it off', () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      prove: { enabled: false, workers: 1 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines).toContain('Proof at 1000 TPS: off (prove.enabled false)');
  });

  it('shows a p99-only SLA as p99, not as "p95 ≤ undefined ms"', () => {
    // Prepare: examples/bert-int64-gpu.json bounds p99 alone.
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      sla: { p99LatencyMs: 50, maxErrorRate: 0.001 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines.filter((line) => line.startsWith('SLA: '))).toEqual([
      'SLA: p99 ≤ 50 ms, error rate ≤ 0.001; objective lowest-cost-per-1m',
    ]);
  });

  it('shows both latency bounds when the SLA sets p95 and p99', () => {
    // Prepare
    const plan = runPlan([plannedCandidate('cpu', 'ml.c5.xlarge', 0.204)], {
      sla: { p95LatencyMs: 20, p99LatencyMs: 40, maxErrorRate: 0.01 },
    });

    // Act
    const lines = formatPlan({ plan, runCommand: 'npm start -- --input in.json' }).split('\n');

    // Assert
    expect(lines.filter((line) => line.startsWith('SLA: '))).toEqual([
      'SLA: p95 ≤ 20 ms, p99 ≤ 40 ms, error rate ≤ 0.01; objective lowest-cost-per-1m',
    ]);
  });
});

import { describe, expect, it } from '@jest/globals';
import { CandidateStatuses } from '../../../core/contracts/optimization-state.js';
import type { PlannedCandidate, RunPlan } from '../../../core/contracts/optimization-state.js';
import type { LoadTestResult } from '../../../core/load-test/index.js';
import { buildReport } from '../../../core/report/build-report.js';
import type { Report } from '../../../core/report/report.js';
import { loadPlanText, recommendationText, summaryTable } from '../../../core/report/render-markdown.js';
import {
  loadTestResult,
  plannedCandidate,
  runPlan,
  SAMPLE_LOAD_PLAN,
  stepResult,
} from '../../../bench/fixtures/sample-report.js';

// The sample SLA is p95 ≤ 20 ms, p99 ≤ 40 ms: these two steps meet it, the third does not.
const metSla = [
  stepResult({ load: 1, tps: 100, medianMs: 4, tailMs: 2 }),
  stepResult({ load: 4, tps: 360, medianMs: 8, tailMs: 4 }),
];
const missedSla = stepResult({ load: 16, tps: 380, medianMs: 30, tailMs: 20 });

// Serverless: mean latency 8.2 ms × 2 GB × $0.00002 per GB-second × 10⁶ requests.
const SLS_COST = 0.328;
const UNSATURATED_NOTE =
  'not saturated: every step met the SLA up to load 4 (the load plan ended), so the capacity is at least 360 TPS; add higher load steps to find it';

function reportOf(
  entries: readonly [PlannedCandidate, LoadTestResult][],
  objective?: RunPlan['objective'],
): Report {
  return buildReport({
    plan: runPlan(
      entries.map(([candidate]) => candidate),
      objective === undefined ? {} : { objective },
    ),
    outcomes: entries.map(([candidate]) => ({
      candidateId: candidate.id,
      status: CandidateStatuses.measured,
    })),
    results: new Map(entries.map(([candidate, result]) => [candidate.id, result])),
    measuredLocally: false,
    generatedAt: '2026-11-22T10:05:00Z',
  });
}

describe('saturation in the report', () => {
  it('marks a candidate whose every step met the SLA as not saturated, its cost per 1M an upper bound', () => {
    // Act
    const report = reportOf([[plannedCandidate('cpu', 'ml.c5.xlarge', 0.204), loadTestResult(metSla)]]);

    // Assert: 0.204 / (360 × 3600) × 10⁶ = 0.1574, at most.
    const candidate = report.candidates[0];
    expect(candidate?.saturated).toBe(false);
    expect(candidate?.saturationNote).toBe(UNSATURATED_NOTE);
    expect(candidate?.costPer1MUsd).toBe(0.1574);
    expect(candidate?.costPer1MIsUpperBound).toBe(true);
    expect(candidate?.reason).toBe(
      `best under lowest-cost-per-1m: ≤ $0.1574 per 1M inferences; ${UNSATURATED_NOTE}`,
    );
  });

  it('counts a candidate with a step that missed the SLA as saturated, its cost per 1M measured', () => {
    // Act
    const report = reportOf([
      [plannedCandidate('cpu', 'ml.c5.xlarge', 0.204), loadTestResult([...metSla, missedSla])],
    ]);

    // Assert
    const candidate = report.candidates[0];
    expect(candidate?.saturated).toBe(true);
    expect(candidate?.saturationNote).toBeUndefined();
    expect(candidate?.costPer1MIsUpperBound).toBeUndefined();
    expect(candidate?.reason).toBe('best under lowest-cost-per-1m: $0.1574 per 1M inferences');
  });

  it('counts a candidate whose throughput levelled off (plateau) as saturated', () => {
    // Prepare
    const result: LoadTestResult = { ...loadTestResult(metSla), stoppedBecause: 'plateau' };

    // Act
    const report = reportOf([[plannedCandidate('cpu', 'ml.c5.xlarge', 0.204), result]]);

    // Assert
    expect(report.candidates[0]?.saturated).toBe(true);
    expect(report.recommendation?.saturated).toBe(true);
  });

  it('names the stop when a deadline cut the steps short of saturation, and advises more time, not higher steps', () => {
    // Prepare
    const result: LoadTestResult = { ...loadTestResult(metSla), stoppedBecause: 'deadline' };

    // Act
    const report = reportOf([[plannedCandidate('cpu', 'ml.c5.xlarge', 0.204), result]]);

    // Assert
    expect(report.candidates[0]?.saturationNote).toBe(
      'not saturated: every step met the SLA up to load 4 (the load test stopped: deadline), so the capacity is at least 360 TPS; give the load test more time (loadPlan.maxTotalSeconds) or fewer, shorter steps to find it',
    );
  });

  it('never calls a serverless cost per 1M an upper bound: it is billed per request, whatever the load', () => {
    // Prepare
    const serverless = plannedCandidate('sls', 'ml.c5.xlarge', 0, {
      kind: 'serverless',
      serverless: { memorySizeMb: 2048, maxConcurrency: 10 },
    });

    // Act
    const report = reportOf([[serverless, loadTestResult(metSla)]]);

    // Assert
    expect(report.candidates[0]?.saturated).toBe(false);
    expect(report.candidates[0]?.costPer1MUsd).toBe(SLS_COST);
    expect(report.candidates[0]?.costPer1MIsUpperBound).toBeUndefined();
  });

  it('says in the recommendation when the winner was not saturated', () => {
    // Prepare: "a" is cheaper per hour and never saturated; "b" saturated.
    const a = plannedCandidate('a', 'ml.c5.large', 0.102);
    const b = plannedCandidate('b', 'ml.c5.xlarge', 0.204);

    // Act
    const report = reportOf([
      [a, loadTestResult(metSla)],
      [b, loadTestResult([...metSla, missedSla])],
    ]);

    // Assert: 0.102 / (360 × 3600) × 10⁶ = 0.0787
    expect(report.recommendation).toMatchObject({
      candidateId: 'a',
      saturated: false,
      costPer1MUsd: 0.0787,
      costPer1MIsUpperBound: true,
    });
    expect(report.recommendation?.why).toBe(
      '≤ $0.0787 per 1M inferences, best of 2 candidate(s) that met the SLA; a was not saturated (every step met the SLA): its capacity may be higher and its cost per 1M lower',
    );
  });

  it('says in the recommendation when a runner-up it beat was not saturated', () => {
    // Prepare: "a" saturated and cheaper; "b"'s cost is only an upper bound.
    const a = plannedCandidate('a', 'ml.c5.large', 0.102);
    const b = plannedCandidate('b', 'ml.c5.xlarge', 0.204);

    // Act
    const report = reportOf([
      [a, loadTestResult([...metSla, missedSla])],
      [b, loadTestResult(metSla)],
    ]);

    // Assert
    expect(report.recommendation?.saturated).toBe(true);
    expect(report.recommendation?.why).toBe(
      '$0.0787 per 1M inferences, best of 2 candidate(s) that met the SLA; b was not saturated: its cost per 1M is an upper bound, so higher load steps could change the ranking',
    );
  });

  it('names several unsaturated runners-up together, in the plural', () => {
    // Prepare: "a" saturated and cheapest; "b" and "c" have only upper bounds.
    const a = plannedCandidate('a', 'ml.c5.large', 0.102);
    const b = plannedCandidate('b', 'ml.c5.xlarge', 0.204);
    const c = plannedCandidate('c', 'ml.c5.2xlarge', 0.408);

    // Act
    const report = reportOf([
      [a, loadTestResult([...metSla, missedSla])],
      [b, loadTestResult(metSla)],
      [c, loadTestResult(metSla)],
    ]);

    // Assert
    expect(report.recommendation?.why).toBe(
      '$0.0787 per 1M inferences, best of 3 candidate(s) that met the SLA; b, c were not saturated: their costs per 1M are upper bounds, so higher load steps could change the ranking',
    );
  });

  it('calls an unsaturated runner-up’s TPS a lower bound under highest-tps', () => {
    // Prepare: "a" saturated at 360 TPS; "b" reached 50 TPS at its only step, a lower bound.
    const a = plannedCandidate('a', 'ml.c5.large', 0.102);
    const b = plannedCandidate('b', 'ml.c5.xlarge', 0.204);
    const slower = [stepResult({ load: 1, tps: 50, medianMs: 4, tailMs: 2 })];

    // Act
    const report = reportOf(
      [
        [a, loadTestResult([...metSla, missedSla])],
        [b, loadTestResult(slower)],
      ],
      'highest-tps',
    );

    // Assert
    expect(report.recommendation?.why).toBe(
      '360 TPS within the SLA, best of 2 candidate(s) that met the SLA; b was not saturated: its TPS is a lower bound, so higher load steps could change the ranking',
    );
    expect(report.candidates[1]?.reason).toBe(
      'met the SLA but ≥ 50 TPS within the SLA vs 360 TPS within the SLA for a; not saturated: every step met the SLA up to load 1 (the load plan ended), so the capacity is at least 50 TPS; add higher load steps to find it',
    );
  });

  it('shows an upper-bound cost per 1M as "≤ $x" in the summary table and the recommendation', () => {
    // Prepare
    const report = reportOf([[plannedCandidate('cpu', 'ml.c5.xlarge', 0.204), loadTestResult(metSla)]]);

    // Act
    const row = summaryTable(report).rows[0]?.cells;
    const text = recommendationText(report);

    // Assert
    expect(row?.[9]).toBe('≤ $0.1574');
    expect(text).toContain(', at ≤ $0.1574 per 1M inferences (an upper bound: not saturated)');
  });

  it('states the extension steps in the load plan line', () => {
    // Prepare
    const report: Report = {
      ...reportOf([[plannedCandidate('cpu', 'ml.c5.xlarge', 0.204), loadTestResult(metSla)]]),
      loadPlan: { ...SAMPLE_LOAD_PLAN, extendUntilSaturated: true, maxLoad: 100 },
    };

    // Act
    const text = loadPlanText(report);

    // Assert: 16 doubled up to the cap of 100.
    expect(text).toBe(
      'closed model, concurrency (requests in flight) 1, 2, 4, 8, 16, extended by doubling up to 100 while every step meets the SLA; 5 s warm-up and 30 s measured per step; 1 load worker',
    );
  });
});

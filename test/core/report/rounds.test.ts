import { describe, expect, it } from '@jest/globals';
import { logger, Warn } from 'vega';
import { compile } from 'vega-lite';
import { CandidateStatuses } from '../../../core/contracts/optimization-state.js';
import type { PlannedCandidate, RunPlan } from '../../../core/contracts/optimization-state.js';
import { type LoadTestResult, settleRounds } from '../../../core/load-test/index.js';
import { buildReport } from '../../../core/report/build-report.js';
import { isEmptyChart, throughputChartSpec } from '../../../core/report/charts-specs.js';
import type { Report } from '../../../core/report/report.js';
import { recommendationText, roundLines, stepTable } from '../../../core/report/render-markdown.js';
import {
  loadTestResult,
  plannedCandidate,
  runPlan,
  stepResult,
} from '../../../bench/fixtures/sample-report.js';

// The sample SLA is p95 ≤ 20 ms, p99 ≤ 40 ms: load 16 misses it.
const STEPS = [
  stepResult({ load: 4, tps: 360, medianMs: 8, tailMs: 4 }),
  stepResult({ load: 16, tps: 380, medianMs: 30, tailMs: 20 }),
];

/** Steps 4 and 16, a probe at 10 that met the SLA, measured again at `repeatTps`. */
function probedResult(probeTps: number, repeatTps: readonly number[]): LoadTestResult {
  return settleRounds(
    {
      ...loadTestResult(STEPS),
      probes: [stepResult({ load: 10, tps: probeTps, medianMs: 9, tailMs: 4 })],
      repeats: repeatTps.map((tps) => stepResult({ load: 10, tps, medianMs: 9, tailMs: 4 })),
    },
    undefined,
  );
}

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

describe('rounds in the report', () => {
  it('prices the median of the repeats with the cost range and shows the probe and repeats, marked', () => {
    // Act: the probe at 10 measured 500, 450 and 550 TPS.
    const report = reportOf([[plannedCandidate('cpu', 'ml.c5.xlarge', 0.36), probedResult(500, [450, 550])]]);

    // Assert: 0.36 / (500 × 3600) × 10⁶ = 0.2; the range at 550 and 450 TPS. A re-run: s = 0.10038
    // (ln 450, ln 500, ln 550; 2 degrees of freedom, t = 4.3027), half-width
    // 4.3027 × 0.10038 × √(2 × π/2 ÷ 3) = 0.44196 → 500 × e^∓0.44196; identical p95s: no width.
    const candidate = report.candidates[0];
    if (candidate === undefined) throw new Error('no candidate');
    expect([candidate.sustainableTps, candidate.sustainableStep, candidate.costPer1MUsd]).toEqual([
      500, 10, 0.2,
    ]);
    const p95 = candidate.spread?.p95Ms.median ?? Number.NaN;
    expect(candidate.spread).toEqual({
      n: 3,
      metSla: 3,
      tps: { min: 450, median: 500, max: 550 },
      p95Ms: { min: p95, median: p95, max: p95 },
      costPer1MUsd: { min: 0.1818, max: 0.2222 },
      rerun: {
        tps: { min: 321.4, max: 777.9 },
        p95Ms: { min: p95, max: p95 },
        costPer1MUsd: { min: 0.1286, max: 0.3112 },
      },
    });
    expect(report.noise).toEqual({
      confidence: 0.95,
      candidates: 1,
      tps: { logSd: 0.10038, degreesOfFreedom: 2 },
      p95Ms: { logSd: 0, degreesOfFreedom: 2 },
    });
    expect(stepTable(report, candidate).rows.map((row) => [row.cells[0], row.mark])).toEqual([
      ['4', 'met'],
      ['16', 'missed'],
      ['10 (knee probe)', 'sustainable'],
      ['10 (repeat)', 'met'],
      ['10 (repeat)', 'met'],
    ]);
    expect(roundLines(candidate)[0]).toBe('Knee probes: 10 met the SLA');
  });

  it('reports the latency of the measurement whose p95 is the median of the repeats', () => {
    // Prepare: the probe at 10 (median 9 ms) measured again at medians 6 and 12 ms.
    const result = settleRounds(
      {
        ...loadTestResult(STEPS),
        probes: [stepResult({ load: 10, tps: 500, medianMs: 9, tailMs: 4 })],
        repeats: [
          stepResult({ load: 10, tps: 450, medianMs: 6, tailMs: 4 }),
          stepResult({ load: 10, tps: 550, medianMs: 12, tailMs: 4 }),
        ],
      },
      undefined,
    );

    // Act
    const report = reportOf([[plannedCandidate('cpu', 'ml.c5.xlarge', 0.36), result]]);

    // Assert: the probe's own percentiles, its p95 the median one.
    const candidate = report.candidates[0];
    expect([candidate?.latencyAtSustainableMs, candidate?.latencyAtSustainableMs?.p95]).toEqual([
      result.probes?.[0]?.latencyMs,
      result.spread?.p95Ms.median,
    ]);
  });

  it('calls the ranking within noise when the costs differ by less than the pooled noise', () => {
    // Prepare: same price; 500 (450–550) vs 480 (440–520) TPS: pooled s = 0.092348 over 4 degrees
    // of freedom (t = 2.7764), half-width 2.7764 × 0.092348 × √(π/3) = 0.26238, e^0.26238 = +30.0 %.
    const report = reportOf([
      [plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [450, 550])],
      [plannedCandidate('b', 'ml.c5.xlarge', 0.36), probedResult(480, [440, 520])],
    ]);

    // Assert
    expect(report.recommendation?.withinNoise).toEqual({
      runnerUp: 'b',
      detail: "cost per 1M $0.2000 vs $0.2083 for b: 4.2 % apart, within the run's noise (±30 % at 95 %)",
    });
    expect(report.recommendation?.why).toBe(
      "$0.2000 per 1M inferences, best of 2 candidate(s) that met the SLA; within noise: cost per 1M $0.2000 vs $0.2083 for b: 4.2 % apart, within the run's noise (±30 % at 95 %), so a re-run may not rank them so",
    );
  });

  it('makes no noise call when the figures are further apart than the noise', () => {
    // Prepare: 500 (490–510) vs 300 (290–310) TPS: ln(500/300) = 0.51 against a half-width of 0.078.
    const report = reportOf([
      [plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [490, 510])],
      [plannedCandidate('b', 'ml.c5.xlarge', 0.36), probedResult(300, [290, 310])],
    ]);

    // Assert
    expect(report.recommendation?.withinNoise).toBeUndefined();
  });

  it('compares TPS under highest-tps', () => {
    // Prepare
    const report = reportOf(
      [
        [plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [450, 550])],
        [plannedCandidate('b', 'ml.c5.xlarge', 0.36), probedResult(480, [440, 520])],
      ],
      'highest-tps',
    );

    // Assert
    expect(report.recommendation?.withinNoise).toEqual({
      runnerUp: 'b',
      detail: "TPS 500.0 vs 480.0 for b: 4 % apart, within the run's noise (±30 % at 95 %)",
    });
  });

  it('pools the noise over the candidates measured more than once and gives the others no interval', () => {
    // Prepare: a measured three times, b once.
    const report = reportOf([
      [plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [450, 550])],
      [plannedCandidate('b', 'ml.c5.xlarge', 0.36), probedResult(300, [])],
    ]);

    // Assert
    expect([report.noise?.candidates, report.noise?.tps.degreesOfFreedom]).toEqual([1, 2]);
    expect(report.candidates[1]?.spread).toBeUndefined();
  });

  it('has no noise figure and makes no call when nothing was repeated', () => {
    // Prepare: 500 vs 490 TPS, each measured once.
    const report = reportOf([
      [plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [])],
      [plannedCandidate('b', 'ml.c5.xlarge', 0.36), probedResult(490, [])],
    ]);

    // Assert
    expect([report.noise, report.recommendation?.withinNoise]).toEqual([undefined, undefined]);
  });

  it('warns in the recommendation when a re-run could move the figures by more than 10 %', () => {
    // Prepare: 450, 500, 550 and 360, 400, 440 (4 degrees of freedom, t = 2.7764): pooled s = 0.10038,
    // 2.7764 × 0.10038 × √(π/3) = 0.28520, ±33 % between two medians of three.
    const report = reportOf([
      [plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [450, 550])],
      [plannedCandidate('b', 'ml.c5.xlarge', 0.36), probedResult(400, [360, 440])],
    ]);

    // Act
    const text = recommendationText(report);

    // Assert
    expect(text).toContain(
      "The figures moved a lot between repeats: a re-run's median TPS may differ by ±33 % (95 %), so differences " +
        'smaller than that are noise; measure on a quieter machine, or with more repeats.',
    );
  });

  it('does not warn when the noise is small', () => {
    // Prepare: 498, 500, 502 and 299, 300, 301: well under 1 %.
    const report = reportOf([
      [plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [498, 502])],
      [plannedCandidate('b', 'ml.c5.xlarge', 0.36), probedResult(300, [299, 301])],
    ]);

    // Act / Assert
    expect(recommendationText(report)).not.toContain('moved a lot');
  });

  it('draws the knee probe on the throughput curve and the re-run bar at the sustainable load', () => {
    // Prepare: steps 4 and 16, the probe at 10 (500 TPS) measured again at 450 and 550.
    const report = reportOf([[plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [450, 550])]]);

    // Act
    const chart = throughputChartSpec(report);

    // Assert: the bar spans the re-run interval (321.4–777.9), its tick the median.
    if (isEmptyChart(chart)) throw new Error('empty chart');
    const layers = (chart as { layer: { data?: { values?: { load?: number }[] } }[] }).layer;
    expect(layers[0]?.data?.values?.map((point) => point.load)).toEqual([4, 16, 10]);
    expect(layers[2]?.data?.values).toEqual([
      { candidate: 'a', load: 10, low: 321.4, high: 777.9, median: 500 },
    ]);
    const warnings: string[] = [];
    compile(chart, {
      logger: logger(Warn, undefined, (_method, _level, input) => {
        warnings.push(Array.from(input).join(' '));
      }),
    });
    expect(warnings).toEqual([]);
  });

  it('says when the interval is wide for want of measurements rather than because the figures moved', () => {
    // Prepare: one candidate measured twice: 1 degree of freedom (t = 12.7).
    const report = reportOf([[plannedCandidate('a', 'ml.c5.xlarge', 0.36), probedResult(500, [510])]]);

    // Act
    const text = recommendationText(report);

    // Assert
    expect(text).toMatch(
      /The run's noise rests on 1 degree\(s\) of freedom, so a re-run's median TPS may differ by ±[\d.]+ % \(95 %\); more repeats \(loadPlan.repeats\) or more candidates narrow it\./,
    );
  });
});

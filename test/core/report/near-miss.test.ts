import { describe, expect, it } from '@jest/globals';
import { CandidateStatuses, type PlannedCandidate } from '../../../core/contracts/optimization-state.js';
import { type LoadTestResult, settleRounds } from '../../../core/load-test/index.js';
import { buildReport } from '../../../core/report/build-report.js';
import { renderHtmlReport } from '../../../core/report/render-html.js';
import { renderMarkdownReport } from '../../../core/report/render-markdown.js';
import type { Report } from '../../../core/report/report.js';
import {
  loadTestResult,
  plannedCandidate,
  runPlan,
  stepResult,
} from '../../../bench/fixtures/sample-report.js';

// The sample SLA is p95 ≤ 20 ms, p99 ≤ 40 ms. A step's p95 is about 1.225 × its median plus half its tail.

/** Meets the SLA at load 4, measured three times there: the run's noise on a p95 is about ±16 %. */
function steady(): LoadTestResult {
  return settleRounds(
    {
      ...loadTestResult([stepResult({ load: 4, tps: 360, medianMs: 8, tailMs: 4 })]),
      repeats: [8.2, 8.4].map((medianMs) => stepResult({ load: 4, tps: 355, medianMs, tailMs: 4 })),
    },
    undefined,
  );
}

/** Misses the p95 bound from the first step by `medianMs` (16.8 ms: about 1.03×; 30 ms: about 1.84×). */
function missing(medianMs: number): LoadTestResult {
  return loadTestResult([stepResult({ load: 1, tps: 50, medianMs, tailMs: 0 })]);
}

const W = 'SAGEMAKER_MODEL_SERVER_WORKERS';

function reportOf(entries: readonly [PlannedCandidate, LoadTestResult][]): Report {
  return buildReport({
    plan: runPlan(entries.map(([candidate]) => candidate)),
    outcomes: entries.map(([candidate]) => ({
      candidateId: candidate.id,
      status: CandidateStatuses.measured,
    })),
    results: new Map(entries.map(([candidate, result]) => [candidate.id, result])),
    measuredLocally: true,
    generatedAt: '2026-11-22T10:05:00Z',
  });
}

/** A 2 × 2 sweep (instance type × workers): a winner, a near miss, a far miss and a runner-up. */
function sweepRun(): Report {
  return reportOf([
    [plannedCandidate('c5-w1', 'ml.c5.large', 0.102, { environment: { [W]: '1' } }), steady()],
    [plannedCandidate('c5-w2', 'ml.c5.large', 0.102, { environment: { [W]: '2' } }), missing(16.8)],
    [plannedCandidate('m5-w1', 'ml.m5.large', 0.115, { environment: { [W]: '1' } }), missing(30)],
    [plannedCandidate('m5-w2', 'ml.m5.large', 0.115, { environment: { [W]: '2' } }), steady()],
  ]);
}

describe('a miss within the run noise', () => {
  it('is a near miss in report.json, with its ratio and the noise', () => {
    // Act
    const near = sweepRun().candidates.find((c) => c.id === 'c5-w2');

    // Assert
    expect(near?.verdict).toBe('missed-sla');
    expect(near?.nearMiss?.slaRatio).toBeGreaterThan(1);
    expect(near?.nearMiss?.slaRatio).toBeLessThan(1.06);
    expect(near?.nearMiss?.noisePercent).toBeGreaterThan((near?.nearMiss?.slaRatio ?? 2) * 100 - 100);
    expect(near?.reason).toMatch(
      /; a near miss: 1\.0\d× the SLA's bound, within this run's noise \(±[\d.]+ % on a p95\)/,
    );
  });

  it('is called so in the verdict column, the outcome lines, its heading and the heatmap', async () => {
    // Prepare
    const report = sweepRun();

    // Act
    const markdown = renderMarkdownReport(report);
    const html = await renderHtmlReport(report);

    // Assert
    expect(markdown).toMatch(/\| c5-w2 \| ml\.c5\.large × 1 \|[^\n]*\| missed SLA \(near miss\) \|/);
    expect(markdown).toContain('- c5-w2: missed SLA (near miss) — missed the SLA');
    expect(markdown).toContain('### c5-w2: missed SLA (near miss)');
    expect(report.sweep?.cells.find((cell) => cell.candidateId === 'c5-w2')?.text).toMatch(
      /^near miss 1\.0\d×$/,
    );
    expect(html).toContain('<span class="verdict missed-sla">missed SLA (near miss)</span>');
  });

  it('does not call a miss beyond the noise a near miss', () => {
    // Act
    const far = sweepRun().candidates.find((c) => c.id === 'm5-w1');

    // Assert
    expect(far?.nearMiss).toBeUndefined();
    expect(far?.reason).not.toContain('near miss');
  });

  it('shows a miss beyond the noise as a miss with its ratio in the heatmap', () => {
    // Act
    const cell = sweepRun().sweep?.cells.find((c) => c.candidateId === 'm5-w1');

    // Assert
    expect(cell?.text).toMatch(/^missed SLA 1\.8\d×$/);
  });

  it('is no near miss in a run without repeats: there is no noise to be within', () => {
    // Act
    const report = reportOf([
      [
        plannedCandidate('c5', 'ml.c5.large', 0.102),
        loadTestResult([stepResult({ load: 4, tps: 360, medianMs: 8, tailMs: 4 })]),
      ],
      [plannedCandidate('m5', 'ml.m5.large', 0.115), missing(16.8)],
    ]);

    // Assert
    expect(report.noise).toBeUndefined();
    expect(report.candidates[1]?.nearMiss).toBeUndefined();
    expect(report.candidates[1]?.reason).not.toContain('near miss');
  });
});

describe('the advice of a miss', () => {
  it('fails when a compiled candidate is told to try a compiled candidate', () => {
    // Act
    const report = reportOf([
      [plannedCandidate('c5-neo', 'ml.c5.large', 0.102, { compiledFor: 'ml_c5' }), missing(30)],
    ]);

    // Assert
    expect(report.candidates[0]?.reason).toMatch(/; try larger or more instances, or relax the SLA$/);
    expect(report.noRecommendationReason).toBe(
      'no candidate met the SLA at any load step; try larger or more instances, or relax the SLA',
    );
  });

  it('tells a serverless candidate to try more memory, not more instances', () => {
    // Act
    const report = reportOf([
      [
        plannedCandidate('sls', 'ml.c5.large', 0.102, {
          kind: 'serverless',
          serverless: { memorySizeMb: 2048, maxConcurrency: 5 },
        }),
        missing(30),
      ],
    ]);

    // Assert
    expect(report.candidates[0]?.reason).toMatch(
      /; try more memory \(serverless\.memorySizeMb, which also gives more vCPUs\), or relax the SLA$/,
    );
  });

  it('names the near misses in the reason of a run without a recommendation', () => {
    // Prepare: measured three times at load 4 (the run's noise), then stalled at load 8: not ranked.
    const stalled = settleRounds(
      {
        ...loadTestResult([
          stepResult({ load: 4, tps: 360, medianMs: 8, tailMs: 4 }),
          stepResult({ load: 8, tps: 30, medianMs: 8, tailMs: 4, stall: { atMs: 1000, durationMs: 17_000 } }),
        ]),
        repeats: [8.2, 8.4].map((medianMs) => stepResult({ load: 4, tps: 355, medianMs, tailMs: 4 })),
      },
      undefined,
    );

    // Act
    const report = reportOf([
      [plannedCandidate('c5-w1', 'ml.c5.large', 0.102), stalled],
      [plannedCandidate('c5-w2', 'ml.c5.large', 0.102), missing(16.8)],
    ]);

    // Assert
    expect(report.recommendation).toBeNull();
    expect(report.noRecommendationReason).toMatch(
      /^no candidate met the SLA at any load step; a near miss within this run's noise: c5-w2 \(1\.0\d×\), so a re-run may recommend it; try /,
    );
  });
});

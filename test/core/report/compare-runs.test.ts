import { describe, expect, it } from '@jest/globals';
import {
  compareFigure,
  compareRuns,
  exitCodeOfComparison,
  InvalidReportError,
  parseReportForComparison,
  parseTolerancePercent,
} from '../../../core/report/compare-runs.js';
import { type ComparedFigures, comparedReport } from './support/comparison-reports.js';

/** A candidate measured three times in each run: TPS around 500, p95 around 10 ms, cost around $0.05. */
const STEADY: ComparedFigures = {
  id: 'c5-large-neo',
  tps: 500,
  p95: 10,
  cost: 0.05,
  spread: { tps: [480, 500, 520], p95: [9, 10, 11], cost: [0.048, 0.052] },
};

describe('compareFigure', () => {
  it('calls overlapping ranges within noise, with the change of the reported values', () => {
    // Act
    const figure = compareFigure(
      'tps',
      { value: 500, range: { min: 480, max: 520 } },
      { value: 470, range: { min: 450, max: 485 } },
    );

    // Assert
    expect(figure).toEqual({
      base: { value: 500, range: { min: 480, max: 520 } },
      new: { value: 470, range: { min: 450, max: 485 } },
      change: -30,
      changePercent: -6,
      verdict: 'within noise',
      basis: 'ranges',
    });
  });

  it('calls disjoint ranges regressed when TPS went down', () => {
    // Act
    const figure = compareFigure(
      'tps',
      { value: 500, range: { min: 480, max: 520 } },
      { value: 440, range: { min: 430, max: 470 } },
    );

    // Assert
    expect([figure.verdict, figure.basis, figure.change, figure.changePercent]).toEqual([
      'regressed',
      'ranges',
      -60,
      -12,
    ]);
  });

  it('calls disjoint ranges improved when p95 went down', () => {
    // Act
    const figure = compareFigure(
      'p95Ms',
      { value: 10, range: { min: 9, max: 11 } },
      { value: 7.5, range: { min: 7, max: 8 } },
    );

    // Assert
    expect([figure.verdict, figure.change, figure.changePercent]).toEqual(['improved', -2.5, -25]);
  });

  it('calls a cost per 1M that went up beyond the ranges regressed', () => {
    // Act
    const figure = compareFigure(
      'costPer1MUsd',
      { value: 0.05, range: { min: 0.048, max: 0.052 } },
      { value: 0.0611, range: { min: 0.06, max: 0.0625 } },
    );

    // Assert
    expect([figure.verdict, figure.change, figure.changePercent]).toEqual(['regressed', 0.0111, 22.2]);
  });

  it('judges a single value against the other run’s range', () => {
    // Act
    const figure = compareFigure('tps', { value: 500, range: { min: 480, max: 520 } }, { value: 475 });

    // Assert
    expect([figure.verdict, figure.basis]).toEqual(['regressed', 'ranges']);
  });

  it('judges figures without spread against ±5 %: 4.8 % is within noise', () => {
    // Act
    const figure = compareFigure('tps', { value: 500 }, { value: 476 });

    // Assert
    expect(figure).toEqual({
      base: { value: 500 },
      new: { value: 476 },
      change: -24,
      changePercent: -4.8,
      verdict: 'within noise',
      basis: 'tolerance',
    });
  });

  it('judges figures without spread against ±5 %: 5.2 % up in p95 is regressed', () => {
    // Act
    const figure = compareFigure('p95Ms', { value: 10 }, { value: 10.52 });

    // Assert
    expect([figure.verdict, figure.basis, figure.changePercent]).toEqual(['regressed', 'tolerance', 5.2]);
  });

  it('applies the tolerance it is given', () => {
    // Act
    const figure = compareFigure('tps', { value: 500 }, { value: 476 }, 2);

    // Assert
    expect(figure.verdict).toBe('regressed');
  });

  it('calls TPS regressed when the candidate no longer meets the SLA', () => {
    // Act
    const figure = compareFigure('tps', { value: 500 }, null);

    // Assert
    expect(figure).toEqual({
      base: { value: 500 },
      new: null,
      change: null,
      changePercent: null,
      verdict: 'regressed',
      basis: 'sla',
    });
  });

  it('calls TPS improved when the candidate now meets the SLA', () => {
    // Act
    const figure = compareFigure('tps', null, { value: 500 });

    // Assert
    expect([figure.verdict, figure.basis]).toEqual(['improved', 'sla']);
  });

  it('calls a figure missing on one side not comparable', () => {
    // Act
    const figure = compareFigure('costPer1MUsd', { value: 0.05 }, null);

    // Assert
    expect([figure.verdict, figure.basis, figure.change]).toEqual(['not comparable', 'missing', null]);
  });
});

describe('compareRuns', () => {
  it('matches candidates by id and lists those in one run only', () => {
    // Prepare
    const base = comparedReport(
      'base',
      [STEADY, { id: 'retired', tps: 100, p95: 5, cost: 0.2 }],
      'c5-large-neo',
    );
    const next = comparedReport('new', [{ id: 'added', tps: 900, p95: 4, cost: 0.03 }, STEADY], 'added');

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect(comparison.candidates.map(({ id }) => id)).toEqual(['c5-large-neo']);
    expect(comparison.onlyInBase).toEqual(['retired']);
    expect(comparison.onlyInNew).toEqual(['added']);
    expect(comparison.recommendation).toEqual({ base: 'c5-large-neo', new: 'added', changed: true });
  });

  it('is unchanged when the recommended candidate stays within noise, whatever a runner-up did', () => {
    // Prepare
    const runnerUp: ComparedFigures = { id: 'c5-large', tps: 300, p95: 12, cost: 0.08 };
    const base = comparedReport('base', [STEADY, runnerUp], 'c5-large-neo');
    const next = comparedReport(
      'new',
      [
        { ...STEADY, tps: 490 },
        { ...runnerUp, tps: 200, cost: 0.12 },
      ],
      'c5-large-neo',
    );

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'unchanged',
      'c5-large-neo (recommended by base): within noise on TPS, p95 ms, $/1M',
    ]);
    expect(comparison.candidates[1]).toMatchObject({
      id: 'c5-large',
      change: 'regressed',
      reason:
        'worse: TPS 300.0 → 200.0 (-33.3 %), no spread measured; $/1M $0.0800 → $0.1200 (+50 %), no spread measured',
    });
  });

  it('regresses when the base’s recommended candidate lost throughput beyond noise', () => {
    // Prepare
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport(
      'new',
      [
        {
          ...STEADY,
          tps: 400,
          cost: 0.0625,
          spread: { tps: [390, 400, 410], p95: [9, 10, 11], cost: [0.061, 0.064] },
        },
      ],
      'c5-large-neo',
    );

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'regressed',
      'c5-large-neo (recommended by base): worse: TPS 500.0 → 400.0 (-20 %), ranges do not overlap; ' +
        '$/1M $0.0500 → $0.0625 (+25 %), ranges do not overlap',
    ]);
    expect(exitCodeOfComparison(comparison.verdict)).toBe(6);
  });

  it('improves when the recommended candidate got better and nothing got worse', () => {
    // Prepare
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport(
      'new',
      [{ ...STEADY, p95: 7, spread: { tps: [480, 500, 520], p95: [6.5, 7, 7.5], cost: [0.048, 0.052] } }],
      'c5-large-neo',
    );

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'improved',
      'c5-large-neo (recommended by base): better: p95 ms 10.00 → 7.00 (-30 %), ranges do not overlap',
    ]);
    expect(exitCodeOfComparison(comparison.verdict)).toBe(0);
  });

  it('regresses when the recommended candidate no longer meets the SLA and the new run recommends nothing', () => {
    // Prepare
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport('new', [{ id: 'c5-large-neo', tps: null }], null);

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'regressed',
      'new recommends nothing (no-candidate-met-sla); base recommended c5-large-neo',
    ]);
    expect(comparison.candidates[0]).toMatchObject({
      change: 'regressed',
      reason: 'worse: no longer meets the SLA',
      baseVerdict: 'recommended',
      newVerdict: 'missed-sla',
    });
  });

  it('is not comparable when the base’s recommended candidate is not in the new run', () => {
    // Prepare
    const shared: ComparedFigures = { id: 'c5-large', tps: 400, p95: 9, cost: 0.07 };
    const base = comparedReport('base', [STEADY, shared], 'c5-large-neo');
    const next = comparedReport(
      'new',
      [shared, { id: 'c5-xlarge', tps: 900, p95: 8, cost: 0.06 }],
      'c5-xlarge',
    );

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'not comparable',
      'c5-large-neo, recommended by base, is not a candidate of new',
    ]);
    expect(exitCodeOfComparison(comparison.verdict)).toBe(0);
  });

  it('improves when only the new run recommends a candidate', () => {
    // Prepare
    const base = comparedReport('base', [{ id: 'c5-large-neo', tps: null }], null);
    const next = comparedReport('new', [STEADY], 'c5-large-neo');

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'improved',
      'new recommends c5-large-neo; base recommended nothing (no-candidate-met-sla)',
    ]);
  });

  it('judges figures without spread against the tolerance it is given and reports it', () => {
    // Prepare
    const single: ComparedFigures = { id: 'c5-large', tps: 500, p95: 10, cost: 0.05 };
    const base = comparedReport('base', [single], 'c5-large');
    const next = comparedReport('new', [{ ...single, tps: 485 }], 'c5-large');

    // Act
    const comparison = compareRuns(base, next, { tolerancePercent: 2 });

    // Assert
    expect(comparison.tolerancePercent).toBe(2);
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'regressed',
      'c5-large (recommended by base): worse: TPS 500.0 → 485.0 (-3 %), no spread measured',
    ]);
  });

  it('notes a candidate deployed differently under the same id', () => {
    // Prepare
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport('new', [{ ...STEADY, instanceType: 'ml.c5.xlarge' }], 'c5-large-neo');

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect(comparison.candidates[0]?.configurationNote).toBe(
      'deployed differently: ml.c5.large × 1, uncompiled → ml.c5.xlarge × 1, uncompiled',
    );
  });

  it('notes settings that differ between the runs', () => {
    // Prepare
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport('new', [STEADY], 'c5-large-neo', {
      measuredLocally: false,
      sla: { p95LatencyMs: 50, maxErrorRate: 0.01 },
    });

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect(comparison.notes).toEqual([
      'one run was measured locally and the other on AWS: base locally, new on AWS; their figures measure different machines',
      'the SLA differs: {"p95LatencyMs":20,"p99LatencyMs":40,"maxErrorRate":0.01,"targetTps":1000} → {"p95LatencyMs":50,"maxErrorRate":0.01}',
    ]);
  });
  it("calls two runs that share no candidate not comparable, naming each run's candidates", () => {
    // Prepare
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport('new', [{ ...STEADY, id: 'm5-large' }], 'm5-large');

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'not comparable',
      'the runs share no candidate (base: c5-large-neo; new: m5-large): nothing was measured in both',
    ]);
    expect(exitCodeOfComparison(comparison.verdict)).toBe(0);
  });

  it('calls two runs under different objectives not comparable, even when the winner regressed', () => {
    // Prepare
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport('new', [{ ...STEADY, tps: 300, cost: 0.09 }], 'c5-large-neo', {
      objective: 'highest-tps',
    });

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect([comparison.verdict, comparison.verdictReason]).toEqual([
      'not comparable',
      'the objectives differ (lowest-cost-per-1m → highest-tps): the recommendations rank by different figures',
    ]);
  });

  it('calls two runs under different SLAs not comparable, naming both', () => {
    // Prepare
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport('new', [{ ...STEADY, tps: 300 }], 'c5-large-neo', {
      sla: { p95LatencyMs: 50, maxErrorRate: 0.01 },
    });

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect(comparison.verdict).toBe('not comparable');
    expect(comparison.verdictReason).toBe(
      'the SLAs differ ({"p95LatencyMs":20,"p99LatencyMs":40,"maxErrorRate":0.01,"targetTps":1000} → {"p95LatencyMs":50,"maxErrorRate":0.01}): a candidate is judged against different limits',
    );
  });
});

describe('parseReportForComparison', () => {
  it('returns a report.json that has what the comparison reads', () => {
    // Prepare
    const report = comparedReport('base', [STEADY], 'c5-large-neo');

    // Act
    const parsed = parseReportForComparison(JSON.parse(JSON.stringify(report)), 'runs/base/report.json');

    // Assert
    expect(parsed).toEqual(report);
  });

  it('refuses a document without candidates, naming the source and the field', () => {
    // Act
    const act = () =>
      parseReportForComparison(
        { ...comparedReport('base', [STEADY], 'c5-large-neo'), candidates: 'none' },
        'runs/base/report.json',
      );

    // Assert
    expect(act).toThrow(InvalidReportError);
    expect(act).toThrow(
      'runs/base/report.json is not a report.json this version can compare: candidates: got "none", expected array. ' +
        'Expected the report.json a run wrote (runs/<run id>/report.json, or `runs report <run id>`)',
    );
  });
});

describe('parseTolerancePercent', () => {
  it.each([
    ['5', 5],
    ['0', 0],
    ['2.5', 2.5],
  ])('reads %s as %d', (text, expected) => {
    // Act
    const percent = parseTolerancePercent(text);

    // Assert
    expect(percent).toBe(expected);
  });

  it.each(['', '-1', 'five', 'Infinity'])('refuses %j', (text) => {
    // Act
    const percent = parseTolerancePercent(text);

    // Assert
    expect(percent).toBeUndefined();
  });

  it('judges on the runs’ pooled noise when their reports carry it: 4 % down is within ±4.6 %', () => {
    // Prepare: both runs 2 % noise over 6 degrees of freedom: pooled over 12 (t = 2.1788), half-width
    // 2.1788 × 0.02 × √(π/3) = 0.04459, e^0.04459 − 1 = 4.6 %.
    const noise = { confidence: 0.95, candidates: 3, tps: { logSd: 0.02, degreesOfFreedom: 6 } };
    const base = { ...comparedReport('base', [STEADY], 'c5-large-neo'), noise };
    const next = { ...comparedReport('new', [{ ...STEADY, tps: 480 }], 'c5-large-neo'), noise };

    // Act
    const figure = compareRuns(base, next).candidates[0]?.figures.tps;

    // Assert
    expect(figure).toEqual({
      base: { value: 500, range: { min: 480, max: 520 }, n: 3 },
      new: { value: 480, range: { min: 480, max: 520 }, n: 3 },
      change: -20,
      changePercent: -4,
      verdict: 'within noise',
      basis: 'noise',
      noisePercent: 4.6,
    });
  });

  it('regresses when TPS fell by more than the runs’ pooled noise, though the ranges overlap', () => {
    // Prepare: 500 → 470 is ln 0.94 = −0.0619, beyond 0.04459; the min–max ranges 480–520 overlap.
    const noise = { confidence: 0.95, candidates: 3, tps: { logSd: 0.02, degreesOfFreedom: 6 } };
    const base = { ...comparedReport('base', [STEADY], 'c5-large-neo'), noise };
    const next = { ...comparedReport('new', [{ ...STEADY, tps: 470 }], 'c5-large-neo'), noise };

    // Act
    const comparison = compareRuns(base, next);

    // Assert
    expect(comparison.verdict).toBe('regressed');
    expect(comparison.candidates[0]?.reason).toBe(
      "worse: TPS 500.0 → 470.0 (-6 %), beyond the runs' noise (±4.6 %)",
    );
  });

  it('uses one run’s noise when only that run measured any, the other’s figures counting once', () => {
    // Prepare: half-width 2.4469 × 0.02 × √(π/6 + 1) = 0.0604; 500 → 460 is −0.0834.
    const noise = { confidence: 0.95, candidates: 3, tps: { logSd: 0.02, degreesOfFreedom: 6 } };
    const base = { ...comparedReport('base', [STEADY], 'c5-large-neo'), noise };
    const next = comparedReport(
      'new',
      [{ id: 'c5-large-neo', tps: 460, p95: 10, cost: 0.05 }],
      'c5-large-neo',
    );

    // Act
    const figure = compareRuns(base, next).candidates[0]?.figures.tps;

    // Assert
    expect([figure?.verdict, figure?.basis, figure?.noisePercent]).toEqual(['regressed', 'noise', 6.2]);
  });

  it('calls a p95 taken at another sustainable load not comparable, whatever the change', () => {
    // Prepare: the new run settled on load 4 (its TPS at 2 and 4 nearly equal), so its p95 doubled.
    const base = comparedReport('base', [STEADY], 'c5-large-neo');
    const next = comparedReport('new', [{ ...STEADY, p95: 20 }], 'c5-large-neo');
    const moved = {
      ...next,
      candidates: next.candidates.map((candidate) => ({ ...candidate, sustainableStep: 4 })),
    };

    // Act
    const comparison = compareRuns(base, moved);

    // Assert
    const figure = comparison.candidates[0]?.figures.p95Ms;
    expect([figure?.verdict, figure?.basis, figure?.loads, figure?.changePercent]).toEqual([
      'not comparable',
      'load',
      { base: 2, new: 4 },
      100,
    ]);
    expect(comparison.verdict).toBe('unchanged');
  });
});

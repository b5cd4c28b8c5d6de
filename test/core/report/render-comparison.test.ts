import { describe, expect, it } from '@jest/globals';
import { compareRuns } from '../../../core/report/compare-runs.js';
import {
  changeCell,
  renderComparisonMarkdown,
  renderComparisonText,
  verdictCell,
} from '../../../core/report/render-comparison.js';
import { type ComparedFigures, comparedReport } from './support/comparison-reports.js';

const MEASURED: ComparedFigures = {
  id: 'c5-large-neo',
  tps: 500,
  p95: 10,
  cost: 0.05,
  spread: { tps: [480, 500, 520], p95: [9, 10, 11], cost: [0.048, 0.052] },
};

/** Base: MEASURED recommended, plus a single-measurement candidate; new: MEASURED slower, one more. */
function sampleComparison() {
  const base = comparedReport(
    'nightly-1',
    [MEASURED, { id: 'c5-large', tps: 300, p95: 12, cost: 0.08 }],
    'c5-large-neo',
  );
  const next = comparedReport(
    'nightly-2',
    [
      {
        ...MEASURED,
        tps: 400,
        cost: 0.0625,
        spread: { tps: [390, 400, 410], p95: [9, 10, 11], cost: [0.061, 0.064] },
      },
      { id: 'c5-large', tps: 306, p95: 12.1, cost: 0.0784 },
      { id: 'c5-xlarge', tps: 800, p95: 9, cost: 0.07 },
    ],
    'c5-large-neo',
  );
  return compareRuns(base, next);
}

describe('renderComparisonMarkdown', () => {
  it('puts one row per candidate and figure: base and new with their ranges, the change, the verdict', () => {
    // Act
    const markdown = renderComparisonMarkdown(sampleComparison());

    // Assert
    const rows = markdown.split('\n').filter((line) => line.startsWith('| c5-large'));
    expect(rows).toEqual([
      '| c5-large-neo | TPS | 500.0 (480.0–520.0) | 400.0 (390.0–410.0) | -100.0 (-20 %) | regressed |',
      '| c5-large-neo | p95 ms | 10.00 (9.00–11.00) | 10.00 (9.00–11.00) | 0.00 (0 %) | within noise |',
      '| c5-large-neo | $/1M | $0.0500 ($0.0480–$0.0520) | $0.0625 ($0.0610–$0.0640) | +$0.0125 (+25 %) | regressed |',
      '| c5-large | TPS | 300.0 | 306.0 | +6.0 (+2 %) | within noise (no spread measured: within ±5 %) |',
      '| c5-large | p95 ms | 12.00 | 12.10 | +0.10 (+0.8 %) | within noise (no spread measured: within ±5 %) |',
      '| c5-large | $/1M | $0.0800 | $0.0784 | -$0.0016 (-2 %) | within noise (no spread measured: within ±5 %) |',
    ]);
  });

  it('opens with the verdict and the recommendation, and lists the candidates of one run only', () => {
    // Act
    const markdown = renderComparisonMarkdown(sampleComparison());

    // Assert
    const bullets = markdown.split('\n').filter((line) => line.startsWith('- '));
    expect(bullets.slice(0, 2)).toEqual([
      '- Verdict: regressed: c5-large-neo (recommended by nightly-1): worse: TPS 500.0 → 400.0 (-20 %), ranges do not overlap; $/1M $0.0500 → $0.0625 (+25 %), ranges do not overlap',
      '- Recommendation: c5-large-neo → c5-large-neo (unchanged)',
    ]);
    expect(bullets).toContain('- Only in new: c5-xlarge');
  });
});

describe('renderComparisonText', () => {
  it('prints the verdict first and pads the table for a terminal', () => {
    // Act
    const text = renderComparisonText(sampleComparison());

    // Assert
    const lines = text.split('\n');
    expect(lines.slice(0, 7)).toEqual([
      'Comparing nightly-1 (2026-11-24T12:00:00.000Z) → nightly-2 (2026-11-24T12:00:00.000Z)',
      'Verdict: regressed: c5-large-neo (recommended by nightly-1): worse: TPS 500.0 → 400.0 (-20 %), ranges do not overlap; $/1M $0.0500 → $0.0625 (+25 %), ranges do not overlap',
      'Recommendation: c5-large-neo → c5-large-neo (unchanged)',
      '',
      '  candidate     figure  base                       new                        change            verdict',
      '  ------------  ------  -------------------------  -------------------------  ----------------  ----------------------------------------------',
      '  c5-large-neo  TPS     500.0 (480.0–520.0)        400.0 (390.0–410.0)        -100.0 (-20 %)    regressed',
    ]);
  });
});

describe('comparison cells', () => {
  it('says how a verdict without spread was reached', () => {
    // Act
    const cell = verdictCell(
      {
        base: { value: 10 },
        new: { value: 11 },
        change: 1,
        changePercent: 10,
        verdict: 'regressed',
        basis: 'tolerance',
      },
      5,
    );

    // Assert
    expect(cell).toBe('regressed (no spread measured: beyond ±5 %)');
  });

  it('says at which loads a p95 that cannot be compared was taken', () => {
    // Act
    const cell = verdictCell(
      {
        base: { value: 4.85 },
        new: { value: 9.83 },
        change: 4.98,
        changePercent: 102.7,
        verdict: 'not comparable',
        basis: 'load',
        loads: { base: 2, new: 4 },
      },
      5,
    );

    // Assert
    expect(cell).toBe('not comparable (at load 2 vs 4)');
  });

  it('says the noise that bounds a verdict on the runs’ noise', () => {
    // Act
    const cell = verdictCell(
      {
        base: { value: 500 },
        new: { value: 470 },
        change: -30,
        changePercent: -6,
        verdict: 'regressed',
        basis: 'noise',
        noisePercent: 4.6,
      },
      5,
    );

    // Assert
    expect(cell).toBe('regressed (noise ±4.6 %)');
  });

  it('says when a candidate no longer meets the SLA', () => {
    // Act
    const cell = verdictCell(
      {
        base: { value: 500 },
        new: null,
        change: null,
        changePercent: null,
        verdict: 'regressed',
        basis: 'sla',
      },
      5,
    );

    // Assert
    expect(cell).toBe('regressed (no longer meets the SLA)');
  });

  it('shows no change for a figure missing on one side', () => {
    // Act
    const cell = changeCell('costPer1MUsd', {
      base: null,
      new: { value: 0.05 },
      change: null,
      changePercent: null,
      verdict: 'not comparable',
      basis: 'missing',
    });

    // Assert
    expect(cell).toBe('—');
  });
});

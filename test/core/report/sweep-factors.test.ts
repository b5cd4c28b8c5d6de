import { describe, expect, it } from '@jest/globals';
import type { CandidateReport } from '../../../core/report/report.js';
import {
  slaMissRatio,
  sweepFactors,
  sweepGrid,
  sweepPanels,
  UNSET,
} from '../../../core/report/sweep-factors.js';
import { BATCH, sweepReport, WORKERS } from '../../../bench/fixtures/sweep-reports.js';

/** A measured runner-up on ml.c5.xlarge; each test changes what it is about. */
function candidate(id: string, extra: Partial<CandidateReport> = {}): CandidateReport {
  return {
    id,
    kind: 'realtime',
    instanceType: 'ml.c5.xlarge',
    instanceCount: 1,
    compiled: false,
    environment: {},
    status: 'MEASURED',
    steps: [],
    sustainableTps: 100,
    sustainableStep: 4,
    priceSource: 'price-table',
    costPer1MUsd: 0.5,
    verdict: 'runner-up',
    reason: 'met the SLA',
    ...extra,
  };
}

describe('sweepFactors', () => {
  it('finds the instance type, compilation and each environment variable that differs, most levels first', () => {
    // Prepare
    const candidates = [
      candidate('a', { environment: { [WORKERS]: '1', OMP_NUM_THREADS: '4' } }),
      candidate('b', { environment: { [WORKERS]: '2', OMP_NUM_THREADS: '4' } }),
      candidate('c', {
        environment: { [WORKERS]: '4', OMP_NUM_THREADS: '4' },
        compiled: true,
        compiledFor: 'ml_c5',
      }),
      candidate('d', { instanceType: 'ml.m5.large', environment: { [WORKERS]: '1', OMP_NUM_THREADS: '4' } }),
    ];

    // Act
    const factors = sweepFactors(candidates);

    // Assert
    expect(factors).toEqual([
      { name: WORKERS, kind: 'environment', levels: ['1', '2', '4'] },
      { name: 'instance type', kind: 'instance-type', levels: ['ml.c5.xlarge', 'ml.m5.large'] },
      { name: 'compiled', kind: 'compiled', levels: ['not compiled', 'ml_c5'] },
    ]);
  });

  it('orders numeric levels as numbers with an unset variable first, and other levels as first seen', () => {
    // Prepare
    const candidates = [
      candidate('a', { instanceType: 'ml.g5.xlarge', environment: { [BATCH]: '16' } }),
      candidate('b', { instanceType: 'ml.c5.xlarge', environment: { [BATCH]: '4' } }),
      candidate('c', { instanceType: 'ml.c5.xlarge' }),
    ];

    // Act
    const factors = sweepFactors(candidates);

    // Assert
    expect(factors.map((factor) => factor.levels)).toEqual([
      [UNSET, '4', '16'],
      ['ml.g5.xlarge', 'ml.c5.xlarge'],
    ]);
  });

  it('names a serverless candidate by its memory and concurrency, and a count that varies', () => {
    // Prepare
    const { instanceType: _none, ...serverless } = candidate('s', {
      kind: 'serverless',
      serverless: { memorySizeMb: 2048, maxConcurrency: 5 },
    });
    const candidates = [serverless, candidate('a', { instanceCount: 2 })];

    // Act
    const factors = sweepFactors(candidates);

    // Assert
    expect(factors).toEqual([
      {
        name: 'instance type',
        kind: 'instance-type',
        levels: ['serverless 2048 MB, 5 concurrent', 'ml.c5.xlarge'],
      },
      { name: 'instance count', kind: 'instance-count', levels: ['1', '2'] },
    ]);
  });
});

describe('sweepGrid', () => {
  it('puts the factor with most levels across, the next down and the rest in panels, with the recommendation', () => {
    // Prepare
    const report = sweepReport();

    // Act
    const grid = sweepGrid(report.objective, report.candidates, report.sla);

    // Assert
    expect(grid).toMatchObject({
      objective: 'lowest-cost-per-1m',
      figure: { label: 'USD per 1M inferences', better: 'lower' },
      x: WORKERS,
      y: 'instance type',
      panels: [BATCH],
      recommendedCandidateId: 'c5-xlarge-w4-b1',
    });
    expect(report.sweep).toEqual(grid);
  });

  it('gives each cell its levels and figure, and a failed or missed-SLA cell its verdict instead of a number', () => {
    // Prepare
    const report = sweepReport();

    // Act
    const cells = sweepGrid(report.objective, report.candidates)?.cells ?? [];

    // Assert
    expect(cells.find((cell) => cell.candidateId === 'c5-xlarge-w4-b1')).toEqual({
      candidateId: 'c5-xlarge-w4-b1',
      levels: { [WORKERS]: '4', 'instance type': 'ml.c5.xlarge', [BATCH]: '1' },
      verdict: 'recommended',
      value: 0.1133,
      text: '$0.1133',
    });
    expect(cells.find((cell) => cell.candidateId === 'c5-xlarge-w4-b8')).toEqual({
      candidateId: 'c5-xlarge-w4-b8',
      levels: { [WORKERS]: '4', 'instance type': 'ml.c5.xlarge', [BATCH]: '8' },
      verdict: 'missed-sla',
      text: 'missed SLA',
    });
    expect(cells.find((cell) => cell.candidateId === 'c5-2xlarge-w2-b1')).toEqual({
      candidateId: 'c5-2xlarge-w2-b1',
      levels: { [WORKERS]: '2', 'instance type': 'ml.c5.2xlarge', [BATCH]: '1' },
      verdict: 'failed',
      text: 'failed',
    });
  });

  it('shades the objective’s figure: TPS for highest-tps, $/h at the target for lowest-cost-at-target', () => {
    // Prepare
    const candidates = [
      candidate('a', { environment: { [WORKERS]: '1' }, sustainableTps: 120, saturated: false }),
      candidate('b', {
        instanceType: 'ml.m5.large',
        environment: { [WORKERS]: '2' },
        atTarget: { targetTps: 1000, canServe: true, instances: 4, usdPerHour: 0.816, note: 'sized' },
      }),
      candidate('c', {
        instanceType: 'ml.m5.large',
        environment: { [WORKERS]: '1' },
        sustainableTps: 90,
        atTarget: { targetTps: 1000, canServe: false, note: 'over the instance quota' },
      }),
    ];

    // Act
    const tps = sweepGrid('highest-tps', candidates)?.cells.map((cell) => [cell.value, cell.text]);
    const atTarget = sweepGrid('lowest-cost-at-target', candidates)?.cells.map((cell) => [
      cell.value,
      cell.text,
    ]);

    // Assert
    expect(tps).toEqual([
      [120, '≥ 120.0 TPS'],
      [100, '100.0 TPS'],
      [90, '90.0 TPS'],
    ]);
    expect(atTarget).toEqual([
      [undefined, 'no price'],
      [0.816, '$0.8160/h'],
      [undefined, 'cannot carry the target'],
    ]);
  });

  it('is absent when only one factor varies', () => {
    // Prepare
    const candidates = [
      candidate('a', { environment: { [WORKERS]: '1' } }),
      candidate('b', { environment: { [WORKERS]: '2' } }),
    ];

    // Act
    const grid = sweepGrid('lowest-cost-per-1m', candidates);

    // Assert
    expect(grid).toBeUndefined();
  });

  it('is absent when two candidates share every level', () => {
    // Prepare
    const candidates = [
      candidate('a', { environment: { [WORKERS]: '1' } }),
      candidate('b', { instanceType: 'ml.m5.large', environment: { [WORKERS]: '2' } }),
      candidate('a-again', { environment: { [WORKERS]: '1' } }),
    ];

    // Act
    const grid = sweepGrid('lowest-cost-per-1m', candidates);

    // Assert
    expect(grid).toBeUndefined();
  });

  it('is absent when the candidates fill half of the grid or less', () => {
    // Prepare: a GPU type uncompiled and compiled, an Inferentia type compiled: 3 of 2 × 3 cells.
    const candidates = [
      candidate('g4dn', { instanceType: 'ml.g4dn.xlarge' }),
      candidate('g4dn-neo', { instanceType: 'ml.g4dn.xlarge', compiled: true, compiledFor: 'ml_g4dn' }),
      candidate('inf2', { instanceType: 'ml.inf2.xlarge', compiled: true, compiledFor: 'ml_inf2' }),
    ];

    // Act
    const grid = sweepGrid('lowest-cost-per-1m', candidates);

    // Assert
    expect(grid).toBeUndefined();
  });

  it('is absent when the candidates fill a diagonal of the grid', () => {
    // Prepare: 3 instance types × 3 worker counts, only the diagonal ran (3 of 9 cells).
    const candidates = ['1', '2', '4'].map((workers, index) =>
      candidate(`c${index}`, {
        instanceType: ['ml.c5.large', 'ml.c5.xlarge', 'ml.c5.2xlarge'][index] ?? '',
        environment: { [WORKERS]: workers },
      }),
    );

    // Act
    const grid = sweepGrid('lowest-cost-per-1m', candidates);

    // Assert
    expect(grid).toBeUndefined();
  });
});

describe('sweepPanels', () => {
  it('groups the cells by the other factors’ levels, in level order', () => {
    // Prepare
    const report = sweepReport();
    const grid = sweepGrid(report.objective, report.candidates, report.sla);
    if (grid === undefined) throw new Error('expected the sweep to form a grid');

    // Act
    const panels = sweepPanels(grid).map((panel) => [
      panel.title,
      panel.cells.map((cell) => cell.candidateId),
    ]);

    // Assert
    expect(panels).toEqual([
      [
        `${BATCH}=1`,
        [
          'c5-xlarge-w1-b1',
          'c5-xlarge-w2-b1',
          'c5-xlarge-w4-b1',
          'c5-2xlarge-w1-b1',
          'c5-2xlarge-w2-b1',
          'c5-2xlarge-w4-b1',
        ],
      ],
      [
        `${BATCH}=8`,
        [
          'c5-xlarge-w1-b8',
          'c5-xlarge-w2-b8',
          'c5-xlarge-w4-b8',
          'c5-2xlarge-w1-b8',
          'c5-2xlarge-w2-b8',
          'c5-2xlarge-w4-b8',
        ],
      ],
    ]);
  });
});

describe('a sweep cell that missed the SLA', () => {
  /** The sweep's missed candidate with every step's p95 and p99 set to `p95Ms`. */
  function missedBy(p95Ms: number): CandidateReport[] {
    const report = sweepReport();
    return report.candidates.map((candidate) =>
      candidate.verdict !== 'missed-sla'
        ? candidate
        : {
            ...candidate,
            steps: candidate.steps.map((step) => ({
              ...step,
              latencyMs: step.latencyMs === null ? null : { ...step.latencyMs, p95: p95Ms, p99: p95Ms },
            })),
          },
    );
  }

  it('gives how far its closest step was over the SLA, so a near miss reads apart from a far one', () => {
    // Prepare: the sweep’s SLA is p95 ≤ 20 ms (and p99 ≤ 40 ms).
    const sla = sweepReport().sla;
    const cell = (p95Ms: number) =>
      sweepGrid('lowest-cost-per-1m', missedBy(p95Ms), sla)?.cells.find((c) => c.verdict === 'missed-sla');

    // Act
    const [near, far] = [cell(20.6), cell(114)];

    // Assert
    expect(sla.p95LatencyMs).toBe(20);
    expect([near?.text, near?.slaRatio]).toEqual(['missed SLA 1.03×', 1.03]);
    expect([far?.text, far?.slaRatio]).toEqual(['missed SLA 5.70×', 5.7]);
  });

  it('gives no figure when the latency was within the bounds (it missed on errors)', () => {
    // Prepare
    const sla = sweepReport().sla;
    const [missed] = missedBy(5).filter((candidate) => candidate.verdict === 'missed-sla');

    // Act
    const ratio = missed === undefined ? 'no candidate' : slaMissRatio(missed, sla);

    // Assert
    expect(ratio).toBeUndefined();
  });
});

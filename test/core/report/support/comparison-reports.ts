import { type CandidateVerdict, RunOutcomes } from '../../../../core/contracts/optimization-state.js';
import { countVerdicts } from '../../../../core/report/run-outcome.js';
import type { CandidateReport, Report } from '../../../../core/report/report.js';
import { SAMPLE_LOAD_PLAN, SAMPLE_SLA } from '../../../../bench/fixtures/sample-report.js';
import { PRICE_TABLE_SOURCE } from '../../../../core/contracts/price-source.js';

/**
 * Reports reduced to what a comparison reads: a candidate's sustainable TPS, p95 at that load,
 * cost per 1M and, when measured more than once, their spread. The rest is a plausible constant.
 */

export interface ComparedFigures {
  readonly id: string;
  /** null: no load met the SLA. */
  readonly tps: number | null;
  readonly p95?: number;
  readonly cost?: number;
  /** min, median, max over the repeats; cost: min, max. */
  readonly spread?: {
    readonly tps: readonly [number, number, number];
    readonly p95: readonly [number, number, number];
    readonly cost?: readonly [number, number];
  };
  readonly verdict?: CandidateVerdict;
  readonly instanceType?: string;
}

export function comparedCandidate(figures: ComparedFigures): CandidateReport {
  const { spread } = figures;
  return {
    id: figures.id,
    kind: 'realtime',
    instanceType: figures.instanceType ?? 'ml.c5.large',
    instanceCount: 1,
    compiled: false,
    environment: {},
    status: 'MEASURED',
    steps: [],
    sustainableTps: figures.tps,
    sustainableStep: figures.tps === null ? null : 2,
    ...(figures.p95 === undefined
      ? {}
      : { latencyAtSustainableMs: { p50: 1, p90: 2, p95: figures.p95, p99: 30, max: 40 } }),
    ...(figures.cost === undefined ? {} : { costPer1MUsd: figures.cost }),
    ...(spread === undefined
      ? {}
      : {
          spread: {
            n: 3,
            metSla: 3,
            tps: { min: spread.tps[0], median: spread.tps[1], max: spread.tps[2] },
            p95Ms: { min: spread.p95[0], median: spread.p95[1], max: spread.p95[2] },
            ...(spread.cost === undefined
              ? {}
              : { costPer1MUsd: { min: spread.cost[0], max: spread.cost[1] } }),
          },
        }),
    priceSource: 'price-table',
    verdict: figures.verdict ?? (figures.tps === null ? 'missed-sla' : 'runner-up'),
    reason: 'as the test set it',
  };
}

/** A report of `candidates`; `recommended` is the winner's id (its verdict set accordingly), or null. */
export function comparedReport(
  runId: string,
  candidates: readonly ComparedFigures[],
  recommended: string | null,
  extra: Partial<Report> = {},
): Report {
  const reports = candidates.map((figures) =>
    comparedCandidate(figures.id === recommended ? { ...figures, verdict: 'recommended' } : figures),
  );
  const winner = reports.find((candidate) => candidate.id === recommended);
  return {
    schemaVersion: 1,
    runId,
    generatedAt: '2026-11-24T12:00:00.000Z',
    measuredLocally: true,
    objective: 'lowest-cost-per-1m',
    sla: SAMPLE_SLA,
    loadPlan: SAMPLE_LOAD_PLAN,
    priceTable: PRICE_TABLE_SOURCE,
    outcome: winner === undefined ? RunOutcomes.noCandidateMetSla : RunOutcomes.recommended,
    counts: countVerdicts(reports.map((candidate) => candidate.verdict)),
    outcomeText: 'as the test set it',
    candidates: reports,
    recommendation:
      winner === undefined
        ? null
        : {
            candidateId: winner.id,
            instanceCount: 1,
            compiled: false,
            environment: {},
            sustainableTps: winner.sustainableTps ?? 0,
            saturated: true,
            why: 'as the test set it',
          },
    runCost: { endpointUsd: 0, note: 'as the test set it' },
    ...extra,
  };
}

import { z } from 'zod';
import { describeIssues, EXIT_CODES, toInputIssues } from '../contracts/index.js';
import type {
  CandidateChange,
  CandidateComparison,
  FigureBasis,
  FigureComparison,
  FigureName,
  FigureRange,
  FigureVerdict,
  MeasuredFigure,
  RunComparison,
  RunSide,
  RunVerdict,
} from '../contracts/index.js';
import type { CandidateReport, Report, PooledNoise } from './report.js';
import { beyondNoise, combineNoise, noisePercent } from './rerun-interval.js';

/**
 * Two runs side by side: the candidates they share, matched by id, each with
 * its sustainable TPS, p95 at that load and cost per 1M in both runs, the change, and whether the
 * change exceeds the noise the runs measured.
 *
 * The noise is the runs' measured noise when they have one (`report.noise`: the repeats' relative
 * spread pooled over each run's candidates, and over both runs here; rerun-interval.ts): a figure
 * changed beyond noise when the two medians differ by more than that noise allows at 95 % for
 * their counts, the same test `recommendation.withinNoise` applies between two candidates of one
 * run (noise.ts). Reports written before the runs had a noise figure fall back to their min–max
 * ranges (beyond noise when they do not overlap). Runs without repeats have no measure of their
 * noise: a change is judged against a stated tolerance (±5 % by default) and said to be so ("no
 * spread measured").
 *
 * The run's verdict follows the candidate the base run recommended: `regressed` when that
 * candidate's TPS went down, or its p95 or cost per 1M up, beyond noise (or it no longer meets the
 * SLA, or the new run recommends nothing); `improved` when it got better and nothing got worse;
 * `unchanged` otherwise. `not comparable` when the base recommendation is not in the new run, when
 * the runs share no candidate, or when their objectives or SLAs differ.
 */

/**
 * Without repeats a run has no measure of its own noise, so a change within ±5 % counts as noise.
 * A stated default, not a measured one: local runs on a shared machine vary more (run them with
 * `loadPlan.repeats` ≥ 2 to get ranges); pass `tolerancePercent` to change it.
 */
export const DEFAULT_NOISE_TOLERANCE_PERCENT = 5;

export const FIGURE_NAMES: readonly FigureName[] = ['tps', 'p95Ms', 'costPer1MUsd'];

/** Which way is better: more throughput, less latency, less cost. */
const HIGHER_IS_BETTER: Readonly<Record<FigureName, boolean>> = {
  tps: true,
  p95Ms: false,
  costPer1MUsd: false,
};

export const FIGURE_LABELS: Readonly<Record<FigureName, string>> = {
  tps: 'TPS',
  p95Ms: 'p95 ms',
  costPer1MUsd: '$/1M',
};

export interface CompareRunsOptions {
  /** @default DEFAULT_NOISE_TOLERANCE_PERCENT */
  readonly tolerancePercent?: number;
}

/** A `--tolerance` option's percentage, or undefined when it is not a finite number of 0 or more. */
export function parseTolerancePercent(text: string): number | undefined {
  const percent = Number(text);
  return text.trim() === '' || !Number.isFinite(percent) || percent < 0 ? undefined : percent;
}

/** What a tolerance refused by `parseTolerancePercent` should have been, for the CLIs' messages. */
export const TOLERANCE_EXPECTED = 'a percentage of 0 or more, e.g. 5';

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function figureOf(candidate: CandidateReport, name: FigureName): MeasuredFigure | null {
  const spread = candidate.spread;
  const measured = (value: number, range: FigureRange | undefined): MeasuredFigure =>
    spread === undefined || range === undefined
      ? { value }
      : { value, range: { min: range.min, max: range.max }, n: spread.n };
  switch (name) {
    case 'tps':
      return candidate.sustainableTps === null ? null : measured(candidate.sustainableTps, spread?.tps);
    case 'p95Ms': {
      const p95 = candidate.latencyAtSustainableMs?.p95;
      return p95 === undefined ? null : measured(p95, spread?.p95Ms);
    }
    case 'costPer1MUsd': {
      const cost = candidate.costPer1MUsd;
      return cost === undefined ? null : measured(cost, spread?.costPer1MUsd);
    }
  }
}

/**
 * A p95 is the latency at the run's sustainable load: two runs that settled on different loads
 * (near-equal throughput at 2 and 4 in flight, say) report latencies of different loads, which no
 * noise explains and no change of the model caused.
 */
function atSameLoad(
  figure: FigureComparison,
  baseLoad: number | null,
  newLoad: number | null,
): FigureComparison {
  if (figure.change === null || baseLoad === null || newLoad === null || baseLoad === newLoad) return figure;
  const { noisePercent: _noise, ...rest } = figure;
  return { ...rest, verdict: 'not comparable', basis: 'load', loads: { base: baseLoad, new: newLoad } };
}

/** Both runs' noise per figure; cost per 1M is a price over the TPS, so it has the TPS's. */
interface ComparisonNoise {
  readonly tps?: PooledNoise;
  readonly p95Ms?: PooledNoise;
}

function noiseFor(noise: ComparisonNoise, name: FigureName): PooledNoise | undefined {
  return name === 'p95Ms' ? noise.p95Ms : noise.tps;
}

function rangeOf(figure: MeasuredFigure): FigureRange {
  return figure.range ?? { min: figure.value, max: figure.value };
}

/** Compares one figure of one candidate across the runs. */
export function compareFigure(
  name: FigureName,
  base: MeasuredFigure | null,
  next: MeasuredFigure | null,
  tolerancePercent: number = DEFAULT_NOISE_TOLERANCE_PERCENT,
  noise?: PooledNoise,
): FigureComparison {
  if (base === null || next === null) {
    // A sustainable TPS is null when no load met the SLA: meeting it in one run only is the change.
    const sla = name === 'tps' && (base !== null || next !== null);
    return {
      base,
      new: next,
      change: null,
      changePercent: null,
      verdict: sla ? (base === null ? 'improved' : 'regressed') : 'not comparable',
      basis: sla ? 'sla' : 'missing',
    };
  }
  const change = next.value - base.value;
  const changePercent = base.value === 0 ? null : (change / base.value) * 100;
  const better = HIGHER_IS_BETTER[name] ? change > 0 : change < 0;
  let basis: FigureBasis;
  let withinNoise: boolean;
  let explained: number | undefined;
  if (noise !== undefined) {
    basis = 'noise';
    const a = { value: base.value, n: base.n ?? 1 };
    const b = { value: next.value, n: next.n ?? 1 };
    withinNoise = !beyondNoise(a, b, noise);
    explained = noisePercent(noise, a.n, b.n);
  } else if (base.range === undefined && next.range === undefined) {
    basis = 'tolerance';
    withinNoise = changePercent === null ? change === 0 : Math.abs(changePercent) <= tolerancePercent;
  } else {
    basis = 'ranges';
    const a = rangeOf(base);
    const b = rangeOf(next);
    withinNoise = a.min <= b.max && b.min <= a.max;
  }
  return {
    base,
    new: next,
    change: round(change, 4),
    changePercent: changePercent === null ? null : round(changePercent, 1),
    verdict: withinNoise ? 'within noise' : better ? 'improved' : 'regressed',
    basis,
    ...(explained === undefined ? {} : { noisePercent: explained }),
  };
}

function deploymentOf(candidate: CandidateReport): string {
  const instance =
    candidate.serverless === undefined
      ? `${candidate.instanceType ?? candidate.kind} × ${candidate.instanceCount}`
      : `serverless ${candidate.serverless.memorySizeMb} MB × ${candidate.serverless.maxConcurrency}`;
  const compiled = candidate.compiled
    ? `compiled${candidate.compiledFor === undefined ? '' : ` for ${candidate.compiledFor}`}`
    : 'uncompiled';
  const environment = Object.entries(candidate.environment)
    .map(([key, value]) => `${key}=${value}`)
    .sort()
    .join(' ');
  return [instance, compiled, environment].filter((part) => part !== '').join(', ');
}

/** "TPS 577.2 → 386.4 (-33.1 %)": a figure that changed beyond noise, for a reason sentence. */
function changeText(name: FigureName, figure: FigureComparison): string {
  if (figure.basis === 'sla') {
    return figure.base === null ? 'now meets the SLA' : 'no longer meets the SLA';
  }
  const percent = figure.changePercent === null ? '' : ` (${signedPercent(figure.changePercent)})`;
  const basis =
    figure.basis === 'tolerance'
      ? ', no spread measured'
      : figure.basis === 'noise'
        ? `, beyond the runs' noise (±${figure.noisePercent ?? '?'} %)`
        : ', ranges do not overlap';
  const value = (side: MeasuredFigure | null): string =>
    side === null ? '—' : formatFigure(name, side.value);
  return `${FIGURE_LABELS[name]} ${value(figure.base)} → ${value(figure.new)}${percent}${basis}`;
}

/** A figure as the reports show it: TPS to 0.1, p95 to 0.01 ms, cost to $0.0001. */
export function formatFigure(name: FigureName, value: number): string {
  switch (name) {
    case 'tps':
      return value.toFixed(1);
    case 'p95Ms':
      return value.toFixed(2);
    case 'costPer1MUsd':
      return `$${value.toFixed(4)}`;
  }
}

/** "+4.2 %", "-33.1 %", "0 %". */
export function signedPercent(percent: number): string {
  return `${percent > 0 ? '+' : ''}${percent} %`;
}

function compareCandidate(
  base: CandidateReport,
  next: CandidateReport,
  tolerancePercent: number,
  noise: ComparisonNoise,
): CandidateComparison {
  const compare = (name: FigureName): FigureComparison => {
    const figure = compareFigure(
      name,
      figureOf(base, name),
      figureOf(next, name),
      tolerancePercent,
      noiseFor(noise, name),
    );
    return name === 'p95Ms'
      ? atSameLoad(figure, base.sustainableStep ?? null, next.sustainableStep ?? null)
      : figure;
  };
  const figures = { tps: compare('tps'), p95Ms: compare('p95Ms'), costPer1MUsd: compare('costPer1MUsd') };
  const named = (verdict: FigureVerdict): FigureName[] =>
    FIGURE_NAMES.filter((name) => figures[name].verdict === verdict);
  const regressed = named('regressed');
  const improved = named('improved');
  const change: CandidateChange =
    regressed.length > 0 ? 'regressed' : improved.length > 0 ? 'improved' : 'unchanged';
  const describe = (names: readonly FigureName[]): string =>
    names.map((name) => changeText(name, figures[name])).join('; ');
  const parts = [
    ...(regressed.length > 0 ? [`worse: ${describe(regressed)}`] : []),
    ...(improved.length > 0 ? [`better: ${describe(improved)}`] : []),
  ];
  const compared = FIGURE_NAMES.filter((name) => figures[name].verdict !== 'not comparable');
  const reason =
    parts.length > 0
      ? parts.join('; ')
      : compared.length === 0
        ? 'nothing to compare: no figure in both runs'
        : `within noise on ${compared.map((name) => FIGURE_LABELS[name]).join(', ')}`;
  const baseDeployment = deploymentOf(base);
  const nextDeployment = deploymentOf(next);
  return {
    id: base.id,
    baseVerdict: base.verdict,
    newVerdict: next.verdict,
    figures,
    change,
    reason,
    ...(baseDeployment === nextDeployment
      ? {}
      : { configurationNote: `deployed differently: ${baseDeployment} → ${nextDeployment}` }),
  };
}

function sideOf(report: Report): RunSide {
  return {
    runId: report.runId,
    ...(report.name === undefined ? {} : { name: report.name }),
    generatedAt: report.generatedAt,
    outcome: report.outcome,
    recommended: report.recommendation?.candidateId ?? null,
  };
}

/** Settings that make the runs' figures less comparable when they differ. */
function settingNotes(base: Report, next: Report): string[] {
  const notes: string[] = [];
  const differs = (a: unknown, b: unknown): boolean => JSON.stringify(a) !== JSON.stringify(b);
  if (base.measuredLocally !== next.measuredLocally) {
    notes.push(
      `one run was measured locally and the other on AWS: ${base.runId} ${base.measuredLocally ? 'locally' : 'on AWS'}, ` +
        `${next.runId} ${next.measuredLocally ? 'locally' : 'on AWS'}; their figures measure different machines`,
    );
  }
  if (base.objective !== next.objective) {
    notes.push(
      `the objective differs: ${base.objective} → ${next.objective}, so the recommendations rank differently`,
    );
  }
  if (differs(base.sla, next.sla)) {
    notes.push(`the SLA differs: ${JSON.stringify(base.sla)} → ${JSON.stringify(next.sla)}`);
  }
  if (differs(base.loadPlan, next.loadPlan)) {
    notes.push(
      `the load plan differs: ${JSON.stringify(base.loadPlan)} → ${JSON.stringify(next.loadPlan)}; sustainable TPS depends on the steps`,
    );
  }
  if (differs(base.priceTable, next.priceTable)) {
    notes.push(`the price table differs: costs per 1M may change with prices alone`);
  }
  return notes;
}

/**
 * Why two runs cannot be judged against each other at all, or undefined when they can: with no
 * candidate in common nothing was measured twice, and under another objective or SLA the
 * recommendations answer different questions, so "regressed" would be a false alarm for a nightly
 * job that gates on it.
 */
function whyNotComparable(
  base: Report,
  next: Report,
  candidates: readonly CandidateComparison[],
): string | undefined {
  const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  if (candidates.length === 0) {
    const ids = (report: Report): string => report.candidates.map(({ id }) => id).join(', ') || 'none';
    return `the runs share no candidate (${base.runId}: ${ids(base)}; ${next.runId}: ${ids(next)}): nothing was measured in both`;
  }
  if (base.objective !== next.objective) {
    return `the objectives differ (${base.objective} → ${next.objective}): the recommendations rank by different figures`;
  }
  if (!sameJson(base.sla, next.sla)) {
    return `the SLAs differ (${JSON.stringify(base.sla)} → ${JSON.stringify(next.sla)}): a candidate is judged against different limits`;
  }
  return undefined;
}

function runVerdict(
  base: Report,
  next: Report,
  candidates: readonly CandidateComparison[],
): { verdict: RunVerdict; reason: string } {
  const notComparable = whyNotComparable(base, next, candidates);
  if (notComparable !== undefined) return { verdict: 'not comparable', reason: notComparable };
  const baseWinner = base.recommendation?.candidateId;
  const nextWinner = next.recommendation?.candidateId;
  if (baseWinner === undefined) {
    return nextWinner === undefined
      ? { verdict: 'unchanged', reason: 'neither run recommended a candidate' }
      : {
          verdict: 'improved',
          reason: `${next.runId} recommends ${nextWinner}; ${base.runId} recommended nothing (${base.outcome})`,
        };
  }
  if (nextWinner === undefined) {
    return {
      verdict: 'regressed',
      reason: `${next.runId} recommends nothing (${next.outcome}); ${base.runId} recommended ${baseWinner}`,
    };
  }
  const compared = candidates.find((candidate) => candidate.id === baseWinner);
  if (compared === undefined) {
    return {
      verdict: 'not comparable',
      reason: `${baseWinner}, recommended by ${base.runId}, is not a candidate of ${next.runId}`,
    };
  }
  return {
    verdict: compared.change,
    reason: `${baseWinner} (recommended by ${base.runId}): ${compared.reason}`,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Partial<Record<K, V>>);
}

/** Compares a new run's report with a base run's. Pure: the caller reads and parses both. */
export function compareRuns(base: Report, next: Report, options: CompareRunsOptions = {}): RunComparison {
  const tolerancePercent = options.tolerancePercent ?? DEFAULT_NOISE_TOLERANCE_PERCENT;
  const nextById = new Map(next.candidates.map((candidate) => [candidate.id, candidate]));
  const baseIds = new Set(base.candidates.map((candidate) => candidate.id));
  const noise: ComparisonNoise = {
    ...optional('tps', combineNoise(base.noise?.tps, next.noise?.tps)),
    ...optional('p95Ms', combineNoise(base.noise?.p95Ms, next.noise?.p95Ms)),
  };
  const candidates = base.candidates.flatMap((candidate) => {
    const other = nextById.get(candidate.id);
    return other === undefined ? [] : [compareCandidate(candidate, other, tolerancePercent, noise)];
  });
  const { verdict, reason } = runVerdict(base, next, candidates);
  const baseSide = sideOf(base);
  const nextSide = sideOf(next);
  return {
    base: baseSide,
    new: nextSide,
    tolerancePercent,
    verdict,
    verdictReason: reason,
    recommendation: {
      base: baseSide.recommended,
      new: nextSide.recommended,
      changed: baseSide.recommended !== nextSide.recommended,
    },
    candidates,
    onlyInBase: base.candidates.filter((candidate) => !nextById.has(candidate.id)).map(({ id }) => id),
    onlyInNew: next.candidates.filter((candidate) => !baseIds.has(candidate.id)).map(({ id }) => id),
    notes: settingNotes(base, next),
  };
}

const rangeSchema = z.object({ min: z.number(), max: z.number() });
const pooledNoiseSchema = z.object({
  logSd: z.number().nonnegative(),
  degreesOfFreedom: z.number().int().positive(),
});

/** The fields of report.json the comparison reads: checked, so a wrong file is named, not misread. */
const comparableReportSchema = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  generatedAt: z.string(),
  measuredLocally: z.boolean(),
  objective: z.string(),
  outcome: z.string(),
  candidates: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      instanceCount: z.number(),
      compiled: z.boolean(),
      environment: z.record(z.string(), z.string()),
      verdict: z.string(),
      sustainableTps: z.number().nullable(),
      sustainableStep: z.number().nullable().optional(),
      latencyAtSustainableMs: z.object({ p95: z.number() }).optional(),
      costPer1MUsd: z.number().optional(),
      spread: z
        .object({
          n: z.number().int().positive(),
          tps: rangeSchema,
          p95Ms: rangeSchema,
          costPer1MUsd: rangeSchema.optional(),
        })
        .optional(),
    }),
  ),
  noise: z.object({ tps: pooledNoiseSchema, p95Ms: pooledNoiseSchema.optional() }).optional(),
  recommendation: z.object({ candidateId: z.string() }).nullable(),
});

/** A file that is not a report.json this version can compare. */
export class InvalidReportError extends Error {
  override readonly name = 'InvalidReportError';
}

/**
 * Checks that `document` (a parsed report.json) has what the comparison reads, or throws
 * `InvalidReportError` naming `source`, each field, what it held and what was expected.
 */
export function parseReportForComparison(document: unknown, source: string): Report {
  const result = comparableReportSchema.safeParse(document, { reportInput: true });
  if (!result.success) {
    throw new InvalidReportError(
      `${source} is not a report.json this version can compare: ${describeIssues(toInputIssues(result.error))}. ` +
        'Expected the report.json a run wrote (runs/<run id>/report.json, or `runs report <run id>`)',
    );
  }
  // Checked above for every field the comparison reads; the rest is only passed through.
  return document as Report;
}

/** The exit code of a comparison (core/contracts/exit-codes.ts): 6 when it regressed, else 0. */
export function exitCodeOfComparison(verdict: RunVerdict): number {
  return verdict === 'regressed' ? EXIT_CODES.regressed : EXIT_CODES.ok;
}

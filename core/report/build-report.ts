import type {
  EndpointInstanceLimit,
  LatencyPercentilesMs,
  Recommendation,
  LatencySla,
} from '../contracts/index.js';
import { findInstance, SERVERLESS_USD_PER_GB_SECOND } from '../catalog/index.js';
import {
  type CaughtError,
  failureReasonOf,
  type CandidateOutcome,
  CandidateStatuses,
  type CandidateVerdict,
  type PlannedCandidate,
  type RunOutcome,
  RunOutcomes,
  type RunPlan,
  type VerdictCounts,
  PRICE_TABLE_SOURCE,
  VARIANT_NAME,
  QUALITY_DISTANCE_UNITS,
  type QualityExample,
} from '../contracts/index.js';
import { countVerdicts, runOutcomeOf } from './run-outcome.js';
import {
  decodeHistogram,
  describeStallAt,
  type LoadTestResult,
  stalledMeasurement,
  type StepResult,
  totalErrors,
  usToMs,
} from '../load-test/index.js';
import type { StreamStepResult } from '../load-test/index.js';
import { type NoiseFigures, withinNoise } from './noise.js';
import {
  type LogDeviation,
  logDeviation,
  noiseHalfWidth,
  noisePercent,
  poolNoise,
  RERUN_CONFIDENCE,
  rerunInterval,
} from './rerun-interval.js';
import type { EndpointMetrics } from '../ports/index.js';
import {
  candidateAtTargetOf,
  serveTargetSection,
  type CandidateAtTarget,
  costAtTargetKey,
} from '../serving/index.js';
import { compiledComparisons } from './compiled-comparison.js';
import { candidateDeploy, type DeploymentContext } from './deploy-requests.js';
import { reportPayloads } from './payload-breakdown.js';
import { slaMissRatio, sweepGrid } from './sweep-factors.js';
import {
  adviceFor,
  type CandidateCase,
  candidateAdvice,
  type NearMiss,
  noRecommendationAdvice,
  NOT_SATURATED_ADVICE,
} from './advice.js';
import type {
  CandidateReport,
  Report,
  ReportSpread,
  ReportStep,
  ReportStreamFigures,
  RunNoise,
} from './report.js';
import type { InstanceSpread } from '../serving/index.js';
import { qualityRuleText } from './quality-text.js';
import { qualityExclusion } from './quality-exclusion.js';

export interface BuildReportInput {
  readonly plan: RunPlan;
  readonly outcomes: readonly CandidateOutcome[];
  /** Load-test results by candidate id, for the measured candidates. */
  readonly results: ReadonlyMap<string, LoadTestResult>;
  readonly measuredLocally: boolean;
  /** The most instances one endpoint can have where the run measured (locally: this machine's). */
  readonly endpointLimit?: EndpointInstanceLimit;
  readonly generatedAt: string;
  /** Endpoint metrics by candidate id, or why they are missing. */
  readonly endpointMetrics?: ReadonlyMap<string, EndpointMetrics | string>;
  /** What "Deploy candidate" read: with it, each candidate carries the requests it was deployed with. */
  readonly deployment?: DeploymentContext;
  /** Each guarded candidate's worst answers, by id, read from its whole verdict. */
  readonly qualityExamples?: ReadonlyMap<string, readonly QualityExample[]>;
  /** How each measured multi-instance candidate's requests spread over its instances, by id. */
  readonly instanceSpreads?: ReadonlyMap<string, InstanceSpread>;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Successful requests of a step: the only ones latencies describe. */
function succeededRequests(step: Pick<ReportStep, 'requests' | 'errors'>): number {
  return step.requests - totalErrors(step.errors);
}

/**
 * Steps (or probes, repeats) for the report; latencies `null` where none was recorded (no request
 * succeeded, none timed out or was dropped).
 */
function reportSteps(steps: readonly StepResult[]): ReportStep[] {
  return steps.map(({ histogram, latencyMs, payloads, stream, ...step }) => {
    const decoded = decodeHistogram(histogram);
    const measured = decoded.totalCount > 0;
    return {
      ...step,
      latencyMs: measured ? latencyMs : null,
      meanLatencyMs: measured ? usToMs(decoded.mean) : null,
      ...(payloads === undefined
        ? {}
        : { payloads: payloads.map(({ histogram: _payloadHistogram, ...figures }) => figures) }),
      ...(stream === undefined ? {} : { stream: reportStream(stream) }),
    };
  });
}

function reportStream({
  ttftHistogram: _ttft,
  itlHistogram: _itl,
  ...figures
}: StreamStepResult): ReportStreamFigures {
  return figures;
}

interface Measured {
  readonly candidate: PlannedCandidate;
  readonly result: LoadTestResult;
  readonly steps: ReportStep[];
  readonly probes: ReportStep[];
  readonly repeats: ReportStep[];
  readonly spread?: ReportSpread;
  readonly sustainable?: ReportStep;
  readonly costPer1MUsd?: number;
  readonly costPer1MOutputTokensUsd?: number;
  readonly costPerHourUsd?: number;
  /** Absent when no step met the SLA (there is no capacity to speak of). */
  readonly saturation?: Saturation;
  /** The cost per 1M was priced from a TPS that is only a lower bound of the capacity. */
  readonly costPer1MIsUpperBound: boolean;
  /** Sized for the SLA's target TPS, when it names one (core/serving/target-sizing.ts). */
  readonly atTarget?: CandidateAtTarget;
  /** The sustainable load's measurements on the log scale, when it was measured more than once. */
  readonly deviation?: { readonly tps?: LogDeviation; readonly p95Ms?: LogDeviation };
}

interface Saturation {
  readonly saturated: boolean;
  readonly note?: string;
}

/**
 * Whether the load test found the candidate's capacity: a step that missed the SLA, or throughput
 * that levelled off (`plateau`), did. Otherwise every step met the SLA and the sustainable TPS is
 * only the top step's: the capacity is at least that, and any figure priced from it is a bound.
 */
function saturationOf(result: LoadTestResult, steps: readonly ReportStep[]): Saturation {
  if (steps.some((step) => !step.meetsSla) || result.stoppedBecause === 'plateau') return { saturated: true };
  const top = steps[steps.length - 1];
  const why =
    result.stoppedBecause === 'completed'
      ? 'the load plan ended'
      : `the load test stopped: ${result.stoppedBecause}`;
  const advice = adviceFor(NOT_SATURATED_ADVICE, { stoppedBecause: result.stoppedBecause });
  return {
    saturated: false,
    note:
      `not saturated: every step met the SLA up to load ${top?.load ?? '?'} (${why}), so the capacity is ` +
      `at least ${round(result.sustainableTps ?? 0, 0)} TPS${advice.map((text) => `; ${text}`).join('')}`,
  };
}

/**
 * The sustainable load's spread, with the cost per 1M over its TPS range for an instance-priced
 * candidate (the lowest cost at the highest TPS).
 */
function reportSpread(result: LoadTestResult, costPerHourUsd: number | undefined): ReportSpread | undefined {
  const { spread } = result;
  if (spread === undefined) return undefined;
  const costAt = (tps: number): number => round(((costPerHourUsd ?? 0) / (tps * 3600)) * 1e6, 4);
  return costPerHourUsd === undefined || spread.tps.min <= 0
    ? spread
    : { ...spread, costPer1MUsd: { min: costAt(spread.tps.max), max: costAt(spread.tps.min) } };
}

/** The sustainable load's measurements (the original and its repeats), as `settleRounds` takes them. */
function deviationOf(
  sustainable: ReportStep | undefined,
  repeats: readonly ReportStep[],
): Measured['deviation'] {
  if (sustainable === undefined) return undefined;
  const measured = [sustainable, ...repeats.filter((step) => step.load === sustainable.load)];
  if (measured.length < 2) return undefined;
  const tps = logDeviation(measured.map((step) => step.tps));
  const p95Ms = logDeviation(
    measured.flatMap((step) => (step.latencyMs === null ? [] : [step.latencyMs.p95])),
  );
  return { ...(tps === undefined ? {} : { tps }), ...(p95Ms === undefined ? {} : { p95Ms }) };
}

/** The run's noise, pooled over the candidates measured more than once. */
function runNoiseOf(measured: readonly Measured[]): RunNoise | undefined {
  const deviations = measured.flatMap((m) => (m.deviation === undefined ? [] : [m.deviation]));
  const tps = poolNoise(deviations.flatMap((d) => (d.tps === undefined ? [] : [d.tps])));
  if (tps === undefined) return undefined;
  const p95Ms = poolNoise(deviations.flatMap((d) => (d.p95Ms === undefined ? [] : [d.p95Ms])));
  return {
    confidence: RERUN_CONFIDENCE,
    candidates: deviations.filter((d) => d.tps !== undefined).length,
    tps: { logSd: round(tps.logSd, 5), degreesOfFreedom: tps.degreesOfFreedom },
    ...(p95Ms === undefined
      ? {}
      : { p95Ms: { logSd: round(p95Ms.logSd, 5), degreesOfFreedom: p95Ms.degreesOfFreedom } }),
  };
}

/** The spread with where a re-run's medians are expected, from the run's noise. */
function withRerun(spread: ReportSpread, costPerHourUsd: number | undefined, noise: RunNoise): ReportSpread {
  const tps = rerunInterval(spread.tps.median, spread.n, noise.tps);
  const p95Ms =
    noise.p95Ms === undefined ? undefined : rerunInterval(spread.p95Ms.median, spread.n, noise.p95Ms);
  const costAt = (value: number): number => round(((costPerHourUsd ?? 0) / (value * 3600)) * 1e6, 4);
  return {
    ...spread,
    rerun: {
      tps: { min: round(tps.min, 1), max: round(tps.max, 1) },
      ...(p95Ms === undefined ? {} : { p95Ms: { min: round(p95Ms.min, 3), max: round(p95Ms.max, 3) } }),
      ...(spread.costPer1MUsd === undefined || costPerHourUsd === undefined
        ? {}
        : { costPer1MUsd: { min: costAt(tps.max), max: costAt(tps.min) } }),
    },
  };
}

function measure(candidate: PlannedCandidate, result: LoadTestResult): Measured {
  const steps = reportSteps(result.steps);
  const probes = reportSteps(result.probes ?? []);
  const repeats = reportSteps(result.repeats ?? []);
  // The sustainable load is a step's, or a knee probe's that met the SLA.
  const sustainable = [...steps, ...probes].find(
    (step) => step.load === result.sustainableStep && step.meetsSla,
  );
  const instances = candidate.initialInstanceCount;
  const costPerHourUsd = candidate.usdPerHour === undefined ? undefined : candidate.usdPerHour * instances;
  let costPer1MUsd: number | undefined;
  if (sustainable !== undefined && result.sustainableTps !== null && result.sustainableTps > 0) {
    if (candidate.kind === 'serverless' && candidate.serverless !== undefined) {
      if (sustainable.meanLatencyMs === null) {
        const saturation = saturationOf(result, steps);
        return {
          candidate,
          result,
          steps,
          probes,
          repeats,
          sustainable,
          saturation,
          costPer1MIsUpperBound: false,
        };
      }
      // Serverless bills each request's duration × memory; the mean latency bounds the duration.
      const gb = candidate.serverless.memorySizeMb / 1024;
      costPer1MUsd = (sustainable.meanLatencyMs / 1000) * gb * SERVERLESS_USD_PER_GB_SECOND * 1e6;
    } else if (costPerHourUsd !== undefined) {
      costPer1MUsd = (costPerHourUsd / (result.sustainableTps * 3600)) * 1e6;
    }
  }
  const saturation = sustainable === undefined ? undefined : saturationOf(result, steps);
  const deviation = deviationOf(sustainable, repeats);
  const spread = reportSpread(
    result,
    candidate.kind === 'serverless' || costPer1MUsd === undefined ? undefined : costPerHourUsd,
  );
  return {
    candidate,
    result,
    steps,
    probes,
    repeats,
    ...(spread === undefined ? {} : { spread }),
    ...(sustainable === undefined ? {} : { sustainable }),
    ...(saturation === undefined ? {} : { saturation }),
    ...(deviation === undefined ? {} : { deviation }),
    // Serverless bills each request's duration, whatever the load: only a price per hour spread
    // over a throughput that may be higher makes the figure a bound.
    costPer1MIsUpperBound:
      costPer1MUsd !== undefined && candidate.kind !== 'serverless' && saturation?.saturated === false,
    ...(costPer1MUsd === undefined ? {} : { costPer1MUsd: round(costPer1MUsd, 4) }),
    ...costPer1MOutputTokens(candidate, result, sustainable, costPerHourUsd),
    ...(costPerHourUsd === undefined ? {} : { costPerHourUsd: round(costPerHourUsd, 4) }),
  };
}

/**
 * A streamed, instance-priced candidate's cost per 1M output tokens: its $/h over the output
 * tokens/s at the sustainable load (the sustainable TPS, a median when repeated, × the step's mean
 * output tokens per request).
 */
function costPer1MOutputTokens(
  candidate: PlannedCandidate,
  result: LoadTestResult,
  sustainable: ReportStep | undefined,
  costPerHourUsd: number | undefined,
): { costPer1MOutputTokensUsd?: number } {
  const perRequest = sustainable?.stream?.outputTokensPerRequest;
  if (
    candidate.kind === 'serverless' ||
    costPerHourUsd === undefined ||
    perRequest === undefined ||
    perRequest <= 0 ||
    result.sustainableTps === null ||
    result.sustainableTps <= 0
  ) {
    return {};
  }
  const tokensPerSecond = result.sustainableTps * perRequest;
  return { costPer1MOutputTokensUsd: round((costPerHourUsd / (tokensPerSecond * 3600)) * 1e6, 4) };
}

/** Orders SLA-meeting candidates best first under the objective; ties go to higher throughput. */
function rank(objective: string, measured: readonly Measured[]): Measured[] {
  const tps = (m: Measured): number => m.result.sustainableTps ?? 0;
  const key = (m: Measured): number => {
    switch (objective) {
      case 'highest-tps':
        return -tps(m);
      case 'lowest-latency':
        return m.steps[0]?.latencyMs?.p95 ?? Number.POSITIVE_INFINITY;
      case 'lowest-cost-at-target':
        return costAtTargetKey(m.atTarget);
      case 'lowest-cost-per-1m-output-tokens':
        return m.costPer1MOutputTokensUsd ?? Number.POSITIVE_INFINITY;
      default:
        return m.costPer1MUsd ?? Number.POSITIVE_INFINITY;
    }
  };
  return [...measured].sort((a, b) => key(a) - key(b) || tps(b) - tps(a));
}

function objectiveFigure(objective: string, m: Measured): string {
  switch (objective) {
    case 'highest-tps':
      return `${m.saturation?.saturated === false ? '≥ ' : ''}${round(m.result.sustainableTps ?? 0, 1)} TPS within the SLA`;
    case 'lowest-latency':
      return `p95 ${m.steps[0]?.latencyMs?.p95 ?? '?'} ms at the lowest load`;
    case 'lowest-cost-at-target':
      return atTargetFigure(m.atTarget);
    case 'lowest-cost-per-1m-output-tokens':
      return m.costPer1MOutputTokensUsd === undefined
        ? 'no price per output token'
        : `${m.costPer1MIsUpperBound ? '≤ ' : ''}$${m.costPer1MOutputTokensUsd.toFixed(4)} per 1M output tokens`;
    default:
      return m.costPer1MUsd === undefined
        ? 'no price'
        : `${m.costPer1MIsUpperBound ? '≤ ' : ''}$${m.costPer1MUsd.toFixed(4)} per 1M inferences`;
  }
}

/** `$1.2240/h for 6 × ml.c5.xlarge at 1000 TPS`, or why the candidate cannot carry the target. */
function atTargetFigure(a: CandidateAtTarget | undefined): string {
  if (a === undefined) return 'not sized for a target';
  if (!a.canServe) return `cannot carry ${a.targetTps} TPS (${a.note})`;
  const what =
    a.instances === undefined ? `${a.concurrency ?? '?'} concurrent requests` : `${a.instances} instances`;
  return a.usdPerHour === undefined
    ? `${what} at ${a.targetTps} TPS, no price`
    : `$${a.usdPerHour.toFixed(4)}/h for ${what} at ${a.targetTps} TPS`;
}

/**
 * What the ranking cannot vouch for: the winner's figure when it was not saturated, and runners-up
 * it beat whose figure was a bound (their TPS could be higher, their cost per 1M lower) under an
 * objective that ranks on it. The lowest-latency objective ranks on the first step: unaffected.
 */
function saturationCaveat(objective: string, best: Measured, beaten: readonly Measured[]): string {
  const parts: string[] = [];
  if (best.saturation?.saturated === false) {
    parts.push(
      `${best.candidate.id} was not saturated (every step met the SLA): its capacity may be higher` +
        (best.costPer1MIsUpperBound ? ' and its cost per 1M lower' : ''),
    );
  }
  if (objective !== 'lowest-latency') {
    const bounded = beaten.filter((m) =>
      objective === 'highest-tps' ? m.saturation?.saturated === false : m.costPer1MIsUpperBound,
    );
    if (bounded.length > 0) {
      const ids = bounded.map((m) => m.candidate.id).join(', ');
      const tps = objective === 'highest-tps';
      const bounds =
        bounded.length === 1
          ? `was not saturated: its ${tps ? 'TPS is a lower bound' : 'cost per 1M is an upper bound'}`
          : `were not saturated: their ${tps ? 'TPS figures are lower bounds' : 'costs per 1M are upper bounds'}`;
      parts.push(`${ids} ${bounds}, so higher load steps could change the ranking`);
    }
  }
  return parts.map((part) => `; ${part}`).join('');
}

/**
 * The latency reported at the sustainable load. Measured more than once: the percentiles of the
 * measurement whose p95 is the median (for an even count, the nearest at or above it), so the
 * p95 shown is the median one and the other percentiles come from the same measurement.
 */
function latencyOf(m: Measured): LatencyPercentilesMs | undefined {
  const { sustainable, spread } = m;
  if (sustainable === undefined) return undefined;
  if (spread === undefined) return sustainable.latencyMs ?? undefined;
  const measured = [sustainable, ...m.repeats.filter((step) => step.load === sustainable.load)];
  const median = spread.p95Ms.median;
  const at = measured
    .flatMap((step) => (step.latencyMs === null ? [] : [step.latencyMs]))
    .filter((latency) => latency.p95 >= median)
    .sort((a, b) => a.p95 - b.p95)[0];
  return at ?? sustainable.latencyMs ?? undefined;
}

/** The figures "within noise" compares; a token-priced objective compares the cost per 1M output tokens. */
function noiseFigures(m: Measured, objective: string): NoiseFigures {
  const cost = objective === 'lowest-cost-per-1m-output-tokens' ? m.costPer1MOutputTokensUsd : m.costPer1MUsd;
  return {
    id: m.candidate.id,
    tps: m.result.sustainableTps ?? 0,
    ...(cost === undefined ? {} : { costPer1MUsd: cost }),
    n: m.spread?.n ?? 1,
  };
}

/** The facts the advice table (advice.ts) judges a candidate's advice on. */
function adviceCase(
  candidate: PlannedCandidate,
  verdict: CandidateVerdict,
  measuredLocally: boolean,
  extra: { readonly modelErrors?: boolean; readonly nearMiss?: NearMiss } = {},
): CandidateCase {
  return {
    verdict,
    kind: candidate.kind,
    compiled: candidate.compiledFor !== undefined || candidate.optimizedBy !== undefined,
    modelErrors: extra.modelErrors ?? false,
    ...(extra.nearMiss === undefined ? {} : { nearMiss: extra.nearMiss }),
    measuredLocally,
  };
}

/** `; advice`, or nothing when no rule fires. */
function adviceSuffix(subject: CandidateCase): string {
  const advice = candidateAdvice(subject);
  return advice === undefined ? '' : `; ${advice}`;
}

/**
 * A miss within the run's noise: the closest step's latency ÷ the SLA's bound lies within where a
 * re-run's p95 is expected (rerun-interval.ts, one measurement against one). The run's noise is
 * measured on the p95 only; a p99 bound is judged with it too, the nearest measure the run has.
 */
function nearMissOf(m: Measured, sla: LatencySla, noise: RunNoise | undefined): NearMiss | undefined {
  const ratio = slaMissRatio(m, sla);
  if (ratio === undefined || noise?.p95Ms === undefined) return undefined;
  if (Math.log(ratio) > noiseHalfWidth(noise.p95Ms, 1, 1)) return undefined;
  return { slaRatio: round(ratio, 3), noisePercent: noisePercent(noise.p95Ms, 1, 1) };
}

/**
 * A measured candidate whose endpoint stalled (load-test/stall.ts): not ranked, whatever it met
 * before, and the reason names the stall and where it was.
 */
function stallVerdict(
  m: Measured,
  measuredLocally: boolean,
): { verdict: CandidateVerdict; reason: string } | undefined {
  const stalled = stalledMeasurement(m.result);
  const stall = stalled?.step.stall;
  if (stalled === undefined || stall === undefined) return undefined;
  const before =
    m.sustainable === undefined
      ? ''
      : `; it met the SLA up to load ${m.sustainable.load} before (figures kept, not ranked)`;
  return {
    verdict: 'stalled',
    reason: `stalled: ${describeStallAt(stall, stalled.where)}, no answer while requests were outstanding${before}${adviceSuffix(adviceCase(m.candidate, 'stalled', measuredLocally))}`,
  };
}

/** The model's response as a sample shows it: `500 "CUDA error: out of memory"`. */
function modelResponse(step: ReportStep): string | undefined {
  const sample = step.errorSamples.find((s) => s.kind === 'model-error') ?? step.errorSamples[0];
  if (sample === undefined) return undefined;
  return `${sample.statusCode === undefined ? '' : `${sample.statusCode} `}"${sample.message}"`;
}

/**
 * A measured candidate without a sustainable step: `model-errors` when every request of its first
 * step failed and model errors were among them (the model or the payload is wrong: no instance
 * would do better), else `missed-sla`; each with the hint that matches.
 */
function missVerdict(
  m: Measured,
  sla: LatencySla,
  noise: RunNoise | undefined,
  measuredLocally: boolean,
): { verdict: CandidateVerdict; reason: string; nearMiss?: NearMiss } {
  const first = m.steps[0];
  if (first === undefined) {
    return { verdict: 'missed-sla', reason: `no step completed (${m.result.stopDetail})` };
  }
  const response = modelResponse(first);
  if (first.requests > 0 && succeededRequests(first) === 0 && first.errors.modelError > 0) {
    return {
      verdict: 'model-errors',
      reason:
        `model errors: every request of the first step (load ${first.load}) failed, ` +
        `${first.errors.modelError} of ${first.requests} with a model error` +
        (response === undefined ? '' : `, e.g. ${response}`) +
        adviceSuffix(adviceCase(m.candidate, 'model-errors', measuredLocally)),
    };
  }
  const someModelErrors =
    first.errors.modelError > 0 && response !== undefined ? `; model errors, e.g. ${response}` : '';
  const modelErrors = first.errors.modelError > 0;
  const nearMiss = modelErrors ? undefined : nearMissOf(m, sla, noise);
  const advice = adviceSuffix(
    adviceCase(m.candidate, 'missed-sla', measuredLocally, {
      modelErrors,
      ...(nearMiss === undefined ? {} : { nearMiss }),
    }),
  );
  return {
    verdict: 'missed-sla',
    reason: `missed the SLA from the first step (load ${first.load}): ${first.slaBreaches.join(', ')}${someModelErrors}${advice}`,
    ...(nearMiss === undefined ? {} : { nearMiss }),
  };
}

const VERDICT_WORDS: Readonly<Record<CandidateVerdict, string>> = {
  recommended: 'recommended',
  'runner-up': 'runner-up',
  'missed-sla': 'missed the SLA',
  'quality-failed': 'failed the quality rule',
  'quality-unknown': 'quality not judged',
  stalled: 'stalled',
  'model-errors': 'model errors',
  'measurement-problem': 'measurement problem',
  failed: 'failed',
  skipped: 'skipped',
};

/** `3 candidates: 1 recommended, 1 runner-up, 1 failed`, verdicts in the contract's order. */
export function countsText(counts: VerdictCounts): string {
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const parts = (Object.keys(VERDICT_WORDS) as CandidateVerdict[])
    .filter((verdict) => counts[verdict] > 0)
    .map((verdict) => `${counts[verdict]} ${VERDICT_WORDS[verdict]}`);
  return `${total} candidate${total === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** The report's first line: the outcome, the recommendation if any, and the candidates' counts. */
export function outcomeSentence(
  outcome: RunOutcome,
  counts: VerdictCounts,
  recommended: string | undefined,
): string {
  switch (outcome) {
    case RunOutcomes.recommended:
      return `Recommended ${recommended ?? '?'}; ${countsText(counts)}.`;
    case RunOutcomes.partial:
      return `Partial: recommended ${recommended ?? '?'}, but not every candidate could be judged against the SLA; ${countsText(counts)}.`;
    case RunOutcomes.noCandidateMetSla:
      return `No recommendation: no candidate met the SLA; ${countsText(counts)}.`;
    case RunOutcomes.noCandidatePassedQuality:
      return `No recommendation: no candidate that met the SLA kept to the output-quality rule; ${countsText(counts)}.`;
    default:
      return `No recommendation: every candidate failed; ${countsText(counts)}.`;
  }
}

/**
 * The candidate's routing strategy, and a note when it had nothing to route between: a strategy on
 * one instance changes nothing in the test, only on the count the target sizes and the proof deploys.
 */
function routingFields(
  planned: PlannedCandidate,
  instances: number,
): Pick<CandidateReport, 'routingStrategy' | 'routingNote'> {
  const strategy = planned.routingStrategy;
  if (strategy === undefined) return {};
  if (instances !== 1) return { routingStrategy: strategy };
  return {
    routingStrategy: strategy,
    routingNote:
      `routingStrategy ${strategy} had no effect on this test: one instance has nothing to route between; ` +
      'it applies to a deployment of several instances (the count for the target, the proof)',
  };
}

function metricsFields(
  metrics: EndpointMetrics | string | undefined,
): Pick<CandidateReport, 'endpointMetrics' | 'endpointMetricsNote'> {
  if (metrics === undefined) return {};
  return typeof metrics === 'string' ? { endpointMetricsNote: metrics } : { endpointMetrics: metrics };
}

/**
 * The candidate as it was tested: the instance type and count "Check endpoint" read from the
 * endpoint (DescribeEndpoint, carried by the outcome) win over the plan's, which for an existing
 * endpoint are only what the run input said. A type other than the planned one is priced from the
 * price table (the run input's prices were applied to the planned type at planning).
 */
export function asTested(
  candidate: PlannedCandidate,
  outcome: CandidateOutcome | undefined,
): PlannedCandidate {
  const instanceType = outcome?.instanceType ?? candidate.instanceType;
  // An endpoint scaled in to zero (or a count SageMaker did not give) cannot price the test.
  const tested = outcome?.instanceCount;
  const initialInstanceCount = tested !== undefined && tested >= 1 ? tested : candidate.initialInstanceCount;
  if (instanceType === candidate.instanceType) return { ...candidate, initialInstanceCount };
  const { usdPerHour: _plannedPrice, ...unpriced } = candidate;
  const usdPerHour = instanceType === undefined ? undefined : findInstance(instanceType)?.usdPerHour;
  return {
    ...unpriced,
    ...(instanceType === undefined ? {} : { instanceType }),
    initialInstanceCount,
    ...(usdPerHour === undefined ? { priceSource: 'unknown' } : { usdPerHour, priceSource: 'price-table' }),
  };
}

/**
 * For an existing endpoint whose run input named an instance type or count: what the input said
 * against what the endpoint has, when they disagree (the endpoint's figures are the ones used).
 */
function configurationNote(
  plan: RunPlan,
  planned: PlannedCandidate,
  tested: PlannedCandidate,
  outcome: CandidateOutcome | undefined,
): string | undefined {
  const given = plan.existingEndpoint;
  if (planned.kind !== 'existing' || given === undefined) return undefined;
  const typeDiffers = given.instanceType !== undefined && given.instanceType !== tested.instanceType;
  const countDiffers =
    given.instanceCount !== undefined && given.instanceCount !== tested.initialInstanceCount;
  if (!typeDiffers && !countDiffers) return undefined;
  const said = `${given.instanceType ?? tested.instanceType ?? '?'} × ${given.instanceCount ?? tested.initialInstanceCount}`;
  const variant = outcome?.variantName === undefined ? '' : ` (variant ${outcome.variantName})`;
  return (
    `existingEndpoint says ${said}, the endpoint has ${tested.instanceType ?? '?'} × ` +
    `${tested.initialInstanceCount}${variant}: costed as the endpoint is`
  );
}

/** The measured candidates, each with its figures at the target where the plan has one. */
function measureCandidates(input: BuildReportInput, tested: readonly PlannedCandidate[]): Measured[] {
  const byId = new Map(tested.map((candidate) => [candidate.id, candidate]));
  const measured: Measured[] = [];
  for (const outcome of input.outcomes) {
    const candidate = byId.get(outcome.candidateId);
    const result = input.results.get(outcome.candidateId);
    if (candidate !== undefined && result !== undefined && outcome.status === CandidateStatuses.measured) {
      const m = measure(candidate, result);
      const atTarget = candidateAtTargetOf(
        input.plan,
        candidate,
        result.sustainableTps,
        m.sustainable?.meanLatencyMs,
        input.endpointLimit,
      );
      measured.push(m.sustainable === undefined || atTarget === undefined ? m : { ...m, atTarget });
    }
  }
  return measured;
}

/** The measured candidates, those that qualify ranked best first, and the run's noise. */
interface Ranking {
  readonly measured: readonly Measured[];
  readonly qualifying: readonly Measured[];
  readonly best: Measured | undefined;
  readonly runNoise: RunNoise | undefined;
}

function rankMeasured(
  plan: RunPlan,
  measured: readonly Measured[],
  outcomeOf: (id: string) => CandidateOutcome | undefined,
): Ranking {
  const qualifying = rank(
    plan.objective,
    // A stalled endpoint hung under load: its figures before are not a capacity to rank on; a
    // candidate whose answers the quality guard did not pass is fast, perhaps, but not the model.
    measured.filter(
      (m) =>
        m.sustainable !== undefined &&
        stalledMeasurement(m.result) === undefined &&
        qualityExclusion(plan, outcomeOf(m.candidate.id)) === undefined,
    ),
  );
  return { measured, qualifying, best: qualifying[0], runNoise: runNoiseOf(measured) };
}

/** Only a count that carries the target: a capped one (quota, endpoint limit) is not "for" it. */
function instancesForTarget(m: Measured): number | undefined {
  return m.atTarget?.canServe === true ? m.atTarget.instances : undefined;
}

/** What every candidate's entry says, measured or not: its configuration and how it was deployed. */
function candidateBase(
  input: BuildReportInput,
  planned: PlannedCandidate,
  candidate: PlannedCandidate,
  outcome: CandidateOutcome | undefined,
) {
  const { plan } = input;
  const note = configurationNote(plan, planned, candidate, outcome);
  const qualityExamples = input.qualityExamples?.get(candidate.id);
  const compilation = plan.compilations.find(
    (item) => item.optimization === undefined && item.target === candidate.compiledFor,
  );
  return {
    id: candidate.id,
    kind: candidate.kind,
    ...(candidate.instanceType === undefined ? {} : { instanceType: candidate.instanceType }),
    instanceCount: candidate.initialInstanceCount,
    ...(candidate.serverless === undefined ? {} : { serverless: candidate.serverless }),
    compiled: candidate.compiledFor !== undefined,
    ...(candidate.compiledFor === undefined ? {} : { compiledFor: candidate.compiledFor }),
    ...(compilation?.compilerOptions === undefined ? {} : { compilerOptions: compilation.compilerOptions }),
    ...(compilation?.quantization === undefined ? {} : { quantization: compilation.quantization }),
    ...(candidate.optimizedBy === undefined ? {} : { optimizedBy: candidate.optimizedBy }),
    ...routingFields(planned, candidate.initialInstanceCount),
    environment: candidate.environment,
    priceSource: candidate.priceSource,
    ...(candidate.usdPerHour === undefined
      ? {}
      : { costPerHourUsd: round(candidate.usdPerHour * candidate.initialInstanceCount, 4) }),
    ...(note === undefined ? {} : { configurationNote: note }),
    ...(outcome?.quality === undefined ? {} : { quality: outcome.quality }),
    ...(qualityExamples === undefined ? {} : { qualityExamples }),
    // The planned candidate: what "Deploy candidate" deployed, whatever the endpoint reported.
    ...(input.deployment === undefined
      ? {}
      : candidateDeploy(plan, planned, input.deployment, input.measuredLocally)),
  };
}

type CandidateBase = ReturnType<typeof candidateBase>;

/**
 * A candidate with figures measured under less load than the steps state: kept for inspection
 * (resultUri), never ranked nor judged against the SLA.
 */
function measurementProblemReport(
  base: CandidateBase,
  candidate: PlannedCandidate,
  outcome: CandidateOutcome,
  measuredLocally: boolean,
): CandidateReport {
  const why = outcome.measurementProblem ?? 'a load worker started late';
  return {
    ...base,
    status: 'MEASUREMENT_PROBLEM',
    failureReason: why,
    steps: [],
    sustainableTps: null,
    sustainableStep: null,
    ...(outcome.resultUri === undefined ? {} : { resultUri: outcome.resultUri }),
    verdict: 'measurement-problem',
    reason: `measurement problem: ${why}${adviceSuffix(adviceCase(candidate, 'measurement-problem', measuredLocally))}`,
  };
}

/** A candidate without figures: skipped, or failed before or during its measurement. */
function unmeasuredReport(base: CandidateBase, outcome: CandidateOutcome | undefined): CandidateReport {
  const skipped = outcome?.status === CandidateStatuses.skipped;
  const reason = skipped
    ? `skipped: ${outcome.skipReason ?? 'no reason given'}`
    : `failed: ${outcome === undefined ? 'no outcome recorded' : failureReasonOf(outcome.error)}`;
  return {
    ...base,
    status: skipped ? 'SKIPPED' : 'FAILED',
    failureReason: reason.replace(/^(skipped|failed): /, ''),
    steps: [],
    sustainableTps: null,
    sustainableStep: null,
    verdict: skipped ? 'skipped' : 'failed',
    reason,
  };
}

/** A measured candidate's verdict: stalled, missed the SLA, recommended or runner-up, and why. */
function measuredVerdict(
  m: Measured,
  plan: RunPlan,
  outcome: CandidateOutcome | undefined,
  ranking: Ranking,
  measuredLocally: boolean,
): { verdict: CandidateVerdict; reason: string; nearMiss?: NearMiss | undefined } {
  const { best } = ranking;
  const stalled = stallVerdict(m, measuredLocally);
  if (stalled !== undefined) return stalled;
  let judged: { verdict: CandidateVerdict; reason: string; nearMiss?: NearMiss | undefined };
  const excluded = qualityExclusion(plan, outcome);
  if (m.sustainable === undefined) {
    judged = missVerdict(m, plan.sla, ranking.runNoise, measuredLocally);
  } else if (excluded !== undefined) {
    judged = excluded;
  } else if (m === best) {
    judged = {
      verdict: 'recommended',
      reason: `best under ${plan.objective}: ${objectiveFigure(plan.objective, m)}`,
    };
  } else {
    judged = {
      verdict: 'runner-up',
      reason: `met the SLA but ${objectiveFigure(plan.objective, m)} vs ${best === undefined ? '?' : objectiveFigure(plan.objective, best)} for ${best?.candidate.id ?? '?'}`,
    };
  }
  return m.saturation?.note === undefined
    ? judged
    : { ...judged, reason: `${judged.reason}; ${m.saturation.note}` };
}

/** A measured candidate's entry: its steps, figures, costs and verdict. */
function measuredReport(
  input: BuildReportInput,
  base: CandidateBase,
  candidate: PlannedCandidate,
  outcome: CandidateOutcome | undefined,
  m: Measured,
  ranking: Ranking,
): CandidateReport {
  const { runNoise } = ranking;
  const { verdict, reason, nearMiss } = measuredVerdict(
    m,
    input.plan,
    outcome,
    ranking,
    input.measuredLocally,
  );
  const instancesForTargetTps = instancesForTarget(m);
  // Billed from creation (when known) to the end of the test; deletion takes about a minute more.
  const billedFromEpochMs = outcome?.endpointCreatedEpochMs ?? m.result.startEpochMs;
  const runSeconds = (m.result.finishedEpochMs - billedFromEpochMs) / 1000;
  return {
    ...base,
    status: 'MEASURED',
    steps: m.steps,
    ...(m.probes.length === 0 ? {} : { probes: m.probes }),
    ...(m.repeats.length === 0 ? {} : { repeats: m.repeats }),
    ...(m.spread === undefined
      ? {}
      : { spread: runNoise === undefined ? m.spread : withRerun(m.spread, m.costPerHourUsd, runNoise) }),
    ...roundsNoteOf(m.result.roundsNote, outcome?.repeatError),
    sustainableTps: m.result.sustainableTps === null ? null : round(m.result.sustainableTps, 2),
    sustainableStep: m.result.sustainableStep,
    ...(latencyOf(m) === undefined ? {} : { latencyAtSustainableMs: latencyOf(m) }),
    stoppedBecause: m.result.stoppedBecause,
    ...(m.saturation === undefined ? {} : { saturated: m.saturation.saturated }),
    ...(m.saturation?.note === undefined ? {} : { saturationNote: m.saturation.note }),
    ...(m.costPer1MUsd === undefined ? {} : { costPer1MUsd: m.costPer1MUsd }),
    ...(m.costPer1MOutputTokensUsd === undefined
      ? {}
      : { costPer1MOutputTokensUsd: m.costPer1MOutputTokensUsd }),
    ...(m.costPer1MIsUpperBound ? { costPer1MIsUpperBound: true as const } : {}),
    ...(instancesForTargetTps === undefined ? {} : { instancesForTargetTps }),
    ...(m.atTarget === undefined ? {} : { atTarget: m.atTarget }),
    ...(m.costPerHourUsd === undefined || candidate.kind !== 'realtime'
      ? {}
      : { runCostUsd: round((m.costPerHourUsd * runSeconds) / 3600, 4) }),
    ...(outcome?.resultUri === undefined ? {} : { resultUri: outcome.resultUri }),
    ...metricsFields(input.endpointMetrics?.get(candidate.id)),
    ...input.instanceSpreads?.get(candidate.id),
    ...(nearMiss === undefined ? {} : { nearMiss }),
    verdict,
    reason,
  };
}

/** Each tested candidate's entry, in the plan's order. */
function candidateReports(
  input: BuildReportInput,
  tested: readonly PlannedCandidate[],
  outcomeOf: (id: string) => CandidateOutcome | undefined,
  ranking: Ranking,
): CandidateReport[] {
  return tested.map((candidate, index) => {
    const outcome = outcomeOf(candidate.id);
    const planned = input.plan.candidates[index] ?? candidate;
    const base = candidateBase(input, planned, candidate, outcome);
    const m = ranking.measured.find((entry) => entry.candidate.id === candidate.id);
    if (outcome?.status === CandidateStatuses.measurementProblem)
      return measurementProblemReport(base, candidate, outcome, input.measuredLocally);
    if (m === undefined) return unmeasuredReport(base, outcome);
    return measuredReport(input, base, candidate, outcome, m, ranking);
  });
}

/** The best qualifying candidate as the recommendation, with how close the runner-up came; null without one. */
function recommendationOf(plan: RunPlan, ranking: Ranking): Recommendation | null {
  const { best, qualifying } = ranking;
  if (best === undefined) return null;
  const noise = withinNoise(
    plan.objective,
    noiseFigures(best, plan.objective),
    qualifying[1] === undefined ? undefined : noiseFigures(qualifying[1], plan.objective),
    ranking.runNoise?.tps,
  );
  return {
    candidateId: best.candidate.id,
    ...(best.candidate.instanceType === undefined ? {} : { instanceType: best.candidate.instanceType }),
    instanceCount: best.candidate.initialInstanceCount,
    compiled: best.candidate.compiledFor !== undefined,
    environment: best.candidate.environment,
    sustainableTps: round(best.result.sustainableTps ?? 0, 2),
    saturated: best.saturation?.saturated !== false,
    ...(best.costPer1MUsd === undefined ? {} : { costPer1MUsd: best.costPer1MUsd }),
    ...(best.costPer1MIsUpperBound ? { costPer1MIsUpperBound: true as const } : {}),
    ...(latencyOf(best) === undefined ? {} : { latencyMs: latencyOf(best) }),
    ...(instancesForTarget(best) === undefined ? {} : { instancesForTargetTps: instancesForTarget(best) }),
    ...(noise === undefined ? {} : { withinNoise: noise }),
    why: `${objectiveFigure(plan.objective, best)}, best of ${qualifying.length} candidate(s) that met the SLA${saturationCaveat(plan.objective, best, qualifying.slice(1))}${noise === undefined ? '' : `; within noise: ${noise.detail}, so a re-run may not rank them so`}`,
  };
}

/** How to serve the target with the qualifying candidates, best first. */
function serveTargetOf(
  input: BuildReportInput,
  outcomeOf: (id: string) => CandidateOutcome | undefined,
  ranking: Ranking,
): ReturnType<typeof serveTargetSection> {
  return serveTargetSection({
    plan: input.plan,
    ranked: ranking.qualifying.map((m) => ({
      candidate: m.candidate,
      ...(m.atTarget === undefined ? {} : { atTarget: m.atTarget }),
      saturated: m.saturation?.saturated !== false,
      variantName: outcomeOf(m.candidate.id)?.variantName ?? VARIANT_NAME,
    })),
    measuredLocally: input.measuredLocally,
  });
}

/** What the endpoints cost while measured, summed over the candidates. */
function runCostOf(candidates: readonly CandidateReport[], measuredLocally: boolean): Report['runCost'] {
  return {
    endpointUsd: round(
      candidates.reduce((sum, c) => sum + (c.runCostUsd ?? 0), 0),
      4,
    ),
    note: measuredLocally
      ? 'measured locally: no AWS cost was incurred; the figure prices the load-test time at the listed rates'
      : 'endpoint-hours from each endpoint’s creation to the end of its load test × price; deleting takes about a minute more',
  };
}

/**
 * Builds report.json's content: per-candidate figures, the ranking and why each candidate won or
 * lost. Phases: the candidates as tested, the measured ones ranked, each candidate's entry, the
 * recommendation, how to serve the target, then the run's outcome and the report's sections.
 */
export function buildReport(input: BuildReportInput): Report {
  const { plan } = input;
  const outcomeOf = (id: string): CandidateOutcome | undefined =>
    input.outcomes.find((o) => o.candidateId === id);
  const tested = plan.candidates.map((candidate) => asTested(candidate, outcomeOf(candidate.id)));
  const ranking = rankMeasured(plan, measureCandidates(input, tested), outcomeOf);
  const candidates = candidateReports(input, tested, outcomeOf, ranking);
  const recommendation = recommendationOf(plan, ranking);
  const serveTarget = serveTargetOf(input, outcomeOf, ranking);
  const comparisons = compiledComparisons(candidates);
  const sweep = sweepGrid(plan.objective, candidates, plan.sla);
  const counts = countVerdicts(candidates.map((c) => c.verdict));
  const outcome = runOutcomeOf(counts);
  return {
    schemaVersion: 1,
    runId: plan.runId,
    ...(plan.name === undefined ? {} : { name: plan.name }),
    generatedAt: input.generatedAt,
    measuredLocally: input.measuredLocally,
    objective: plan.objective,
    sla: plan.sla,
    loadPlan: plan.loadPlan,
    priceTable: PRICE_TABLE_SOURCE,
    ...(plan.shortlist === undefined
      ? {}
      : { shortlist: { request: plan.shortlist.request, rule: plan.shortlist.rule } }),
    ...(plan.quality === undefined
      ? {}
      : {
          quality: {
            ...plan.quality,
            ruleText: qualityRuleText(plan.quality.rule),
            distanceUnit: QUALITY_DISTANCE_UNITS[plan.quality.rule.kind],
          },
        }),
    outcome,
    counts,
    outcomeText: outcomeSentence(outcome, counts, recommendation?.candidateId),
    ...(serveTarget === undefined ? {} : { serveTarget }),
    candidates,
    ...(ranking.runNoise === undefined ? {} : { noise: ranking.runNoise }),
    recommendation,
    ...(recommendation === null
      ? {
          noRecommendationReason:
            outcome === RunOutcomes.allCandidatesFailed
              ? 'no candidate could be judged against the SLA (each failed, was skipped or answered with model errors; see each reason)'
              : outcome === RunOutcomes.noCandidatePassedQuality
                ? `every candidate that met the SLA was left out by the output-quality guard: its answers broke the rule against the reference ${plan.quality?.referenceCandidateId ?? '?'}, or could not be judged (see each reason)`
                : noRecommendationText(tested, candidates, input.measuredLocally),
        }
      : {}),
    ...(plan.payloads.length > 1 ? { payloads: reportPayloads(plan.payloads) } : {}),
    ...(comparisons.length === 0 ? {} : { compiledComparisons: comparisons }),
    ...(sweep === undefined ? {} : { sweep }),
    runCost: runCostOf(candidates, input.measuredLocally),
  };
}
/**
 * Why the rounds ended early: the stored note (a round not counted), or an interleaved repeat that
 * failed (its endpoint was then deleted; the figures before it stand).
 */
function roundsNoteOf(
  stored: string | undefined,
  repeatError: CaughtError | undefined,
): { roundsNote?: string } {
  const failed =
    repeatError === undefined
      ? undefined
      : `an interleaved repeat failed (${failureReasonOf(repeatError)}); no further repeats, the figures before it stand`;
  const notes = [stored, failed].filter((note): note is string => note !== undefined);
  return notes.length === 0 ? {} : { roundsNote: notes.join('; ') };
}

/** "No candidate met the SLA", with the near misses and the remedies that fit the candidates that missed. */
function noRecommendationText(
  tested: readonly PlannedCandidate[],
  candidates: readonly CandidateReport[],
  measuredLocally: boolean,
): string {
  const missed = candidates.flatMap((report, index) => {
    const candidate = tested[index];
    if (candidate === undefined || report.verdict !== 'missed-sla') return [];
    const modelErrors = report.steps[0] !== undefined && report.steps[0].errors.modelError > 0;
    return [
      {
        id: report.id,
        ...adviceCase(candidate, report.verdict, measuredLocally, {
          modelErrors,
          ...(report.nearMiss === undefined ? {} : { nearMiss: report.nearMiss }),
        }),
      },
    ];
  });
  const advice = noRecommendationAdvice({ missed });
  return `no candidate met the SLA at any load step${advice === undefined ? '' : `; ${advice}`}`;
}

import type {
  Shortlist,
  ModelPackageRef,
  CandidateVerdict,
  RunOutcome,
  VerdictCounts,
  PRICE_TABLE_SOURCE,
  RoutingStrategy,
  LatencyPercentilesMs,
  Recommendation,
  LoadPlan,
  PlannedQuality,
  QualityExample,
  QualityVerdictSummary,
  LatencySla,
  Quantization,
  BaselineComparison,
} from '../contracts/index.js';
import type { CandidateDeploy } from './deploy-requests.js';
import type { EndpointMetrics } from '../ports/index.js';
import type { InstanceShare, ServeTarget, CandidateAtTarget } from '../serving/index.js';
import type { NearMiss } from './advice.js';
import type {
  MeasuredSpread,
  PayloadStepResult,
  StepResult,
  StopReason,
  StreamStepResult,
} from '../load-test/index.js';

/** report.json: the machine-readable result of a run. report.md and report.html render it. */
export interface Report {
  readonly schemaVersion: 1;
  readonly runId: string;
  readonly name?: string;
  readonly generatedAt: string;
  /** Local runs measure this machine's CPU standing in for the instance types: say so everywhere. */
  readonly measuredLocally: boolean;
  readonly objective: string;
  readonly sla: LatencySla;
  readonly loadPlan: LoadPlan;
  readonly priceTable: typeof PRICE_TABLE_SOURCE;
  /** The planner chose the instance types (the run input asked for a shortlist): how, and from what. */
  readonly shortlist?: Pick<Shortlist, 'request' | 'rule'>;
  /** The output-quality guard, when the run had one: the reference, the rule, and in words. */
  readonly quality?: ReportQuality;
  /** How the run ended (recommended, partial, no-candidate-met-sla, all-candidates-failed). */
  readonly outcome: RunOutcome;
  /** Each verdict's count over the candidates. */
  readonly counts: VerdictCounts;
  /** The outcome and what happened to each candidate, in one sentence: the report's first line. */
  readonly outcomeText: string;
  /** "Serve X TPS": the count, cost and autoscaling policy for the SLA's target, when it names one. */
  readonly serveTarget?: ServeTarget;
  readonly candidates: readonly CandidateReport[];
  /** The run's measured noise, when any candidate's sustainable load was measured more than once. */
  readonly noise?: RunNoise;
  readonly recommendation: Recommendation | null;
  /** Why nothing was recommended, when nothing was. */
  readonly noRecommendationReason?: string;
  readonly runCost: { readonly endpointUsd: number; readonly note: string };
  /** The run's payload mix, when it sent more than one payload (each step's `payloads` index it). */
  readonly payloads?: readonly ReportPayload[];
  /** Each compiled candidate against its uncompiled twin, when the run has such pairs. */
  readonly compiledComparisons?: readonly CompiledComparison[];
  /** The sweep's factor grid, when the candidates form one (report/sweep-factors.ts). */
  readonly sweep?: SweepGrid;
  /** The Model Registry package version measured, when the run names one (run input `modelPackage`). */
  readonly modelPackage?: ModelPackageRef;
  /** With `modelPackage`: this run against its group's last approved version (registry-baseline.ts). */
  readonly baselineComparison?: BaselineComparison;
  /**
   * Local runs: how busy the machine the candidates were measured on was, before and during the
   * run. Absent from AWS runs (no local machine) and from reports of earlier versions.
   */
  readonly machineLoad?: ReportMachineLoad;
}

/** The run's output-quality guard as the report states it. */
export interface ReportQuality extends PlannedQuality {
  /** The rule in one phrase (report/quality-text.ts). */
  readonly ruleText: string;
  /** What an example's `distance` counts. */
  readonly distanceUnit: string;
}

/** One reading of the machine's load (Linux `/proc/stat` and the load average). */
export interface MachineLoadReading {
  /** The 1-minute load average ÷ the cores. */
  readonly loadPerCore: number;
  /** Tasks runnable (`procs_running`), where the system reports it. */
  readonly procsRunning?: number;
}

/** The machine of a local run, as the CLI sampled it from the first state to the summary. */
export interface ReportMachineLoad {
  readonly cores: number;
  /** As the run started. */
  readonly before: MachineLoadReading;
  /** Over the samples taken while it ran: the mean and the highest. */
  readonly during?: {
    readonly samples: number;
    readonly meanLoadPerCore: number;
    readonly maxLoadPerCore: number;
    /** The highest `procs_running` sampled, where the system reports it. */
    readonly maxProcsRunning?: number;
  };
  /** Share of CPU time the hypervisor stole while the run ran, in %, where the system reports it. */
  readonly stealPercent?: number;
  /** Why the machine counts as busy; empty when it was quiet. */
  readonly busyBecause: readonly string[];
}

/** One payload of the run's mix, as the plan read it. */
export interface ReportPayload {
  readonly index: number;
  readonly uri: string;
  readonly contentType: string;
  readonly weight: number;
  /** weight ÷ the weights' sum: the expected share of requests. */
  readonly share: number;
  readonly sizeBytes: number;
  /** A prompt set's bucket (the run input's `prompts`): this payload is its prompts, weighted by their count. */
  readonly bucket?: { readonly name: string; readonly maxChars?: number };
}

/** The verdicts (`model-errors`, `measurement-problem`, …) are the contract's: optimization-state.ts. */
export type { CandidateVerdict };

/**
 * One report step: the load test's step without its encoded histograms (kept in the result file).
 * Latencies are of successful requests and of those without an answer (a timeout at least the
 * request timeout): `null` when none was recorded (every request failed with an error response),
 * never zeros that would read as a very fast endpoint. `stall`: where the endpoint stopped
 * answering in the step (load-test/stall.ts). `payloads`: each payload's figures in the step, by
 * its index in the report's `payloads`.
 */
export type ReportStep = Omit<StepResult, 'histogram' | 'latencyMs' | 'payloads' | 'stream'> & {
  readonly latencyMs: LatencyPercentilesMs | null;
  readonly meanLatencyMs: number | null;
  readonly payloads?: readonly Omit<PayloadStepResult, 'histogram'>[];
  /** A streamed step's TTFT, ITL and output tokens (loadPlan.response), without the histograms. */
  readonly stream?: ReportStreamFigures;
};

/** `StreamStepResult` without its encoded histograms (kept in the result file). */
export type ReportStreamFigures = Omit<StreamStepResult, 'ttftHistogram' | 'itlHistogram'>;

export interface CandidateReport {
  readonly id: string;
  readonly kind: 'realtime' | 'serverless' | 'existing';
  readonly instanceType?: string;
  readonly instanceCount: number;
  readonly serverless?: { readonly memorySizeMb: number; readonly maxConcurrency: number };
  readonly compiled: boolean;
  readonly compiledFor?: string;
  /** The compile's own precision: its target's Neuron flags, or its int8 quantization. */
  readonly compilerOptions?: string;
  readonly quantization?: Quantization;
  /** The optimization job (`compilation.optimizations` id) whose model the candidate served. */
  readonly optimizedBy?: string;
  /** The candidate's `routingStrategy`, when it named one (SageMaker's RANDOM otherwise). */
  readonly routingStrategy?: RoutingStrategy;
  /** Why the routing strategy changed nothing in the test (one instance), when it did not. */
  readonly routingNote?: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly status: 'MEASURED' | 'MEASUREMENT_PROBLEM' | 'SKIPPED' | 'FAILED';
  readonly failureReason?: string;
  readonly steps: readonly ReportStep[];
  /**
   * Knee probes, in the order run: one-step tests between the last step that met the SLA and the
   * first that breached it (core/load-test/rounds.ts). Absent when none ran.
   */
  readonly probes?: readonly ReportStep[];
  /** Repeated measurements of the sustainable load, the original not included. */
  readonly repeats?: readonly ReportStep[];
  /**
   * How the sustainable load's measurements spread when it was measured more than once
   * (`sustainableTps` is then their median), with the cost per 1M over the TPS range.
   */
  readonly spread?: ReportSpread;
  /** Why the rounds ended early, when they did. */
  readonly roundsNote?: string;
  /** Throughput of the best step or probe that met the SLA (the repeats' median); null when none did. */
  readonly sustainableTps: number | null;
  readonly sustainableStep: number | null;
  readonly latencyAtSustainableMs?: LatencyPercentilesMs;
  readonly stoppedBecause?: StopReason;
  readonly costPerHourUsd?: number;
  readonly priceSource: string;
  /**
   * An existing endpoint whose run input (`existingEndpoint.instanceType`/`instanceCount`) disagrees
   * with what DescribeEndpoint says: both, and that the endpoint's figures were used.
   */
  readonly configurationNote?: string;
  /**
   * Whether the load test found the candidate's capacity: false when every step met the SLA and
   * throughput had not levelled off (stopped `completed`, or cut short by a deadline or request
   * cap), so the sustainable TPS is only the top step's. Absent when no step met the SLA.
   */
  readonly saturated?: boolean;
  /** Why the candidate counts as not saturated, when it does not. */
  readonly saturationNote?: string;
  /** $/h ÷ (TPS × 3600) × 10⁶ for instances; billed duration × memory × price for serverless. */
  readonly costPer1MUsd?: number;
  /**
   * A streamed candidate, instance-priced: $/h ÷ (output tokens/s at the sustainable load × 3600)
   * × 10⁶. An upper bound with `costPer1MIsUpperBound`, as the cost per 1M inferences.
   */
  readonly costPer1MOutputTokensUsd?: number;
  /**
   * `costPer1MUsd` is an upper bound, not a measurement: an instance-priced candidate that was not
   * saturated may carry more TPS for the same $/h. Serverless bills per request, so never.
   */
  readonly costPer1MIsUpperBound?: true;
  /** Instances of this type that carry the SLA's target TPS, when it names one and they can: `atTarget.instances`. */
  readonly instancesForTargetTps?: number;
  /** The candidate sized for the target TPS: count (or serverless concurrency), $/h, $/1M at the target. */
  readonly atTarget?: CandidateAtTarget;
  /** What this candidate's endpoint cost during the run (endpoint-hours × price). */
  readonly runCostUsd?: number;
  readonly resultUri?: string;
  /** Local runs: the file `resultUri` is, relative to the report's folder (local-files.ts). */
  readonly resultFile?: string;
  /** What the endpoint reported over the test window (CloudWatch on AWS, process figures locally). */
  readonly endpointMetrics?: EndpointMetrics;
  /** Why endpoint metrics are missing, when they were looked for and not found. */
  readonly endpointMetricsNote?: string;
  /**
   * A measured candidate of several instances: how the test's requests spread over them (one count
   * per instance locally; on AWS the variant's `InvocationsPerInstance`, one entry), from the same
   * reader and note as the proof's (report/read-instance-spread.ts).
   */
  readonly perInstance?: readonly InstanceShare[];
  /** Busiest ÷ least busy instance; only with one count per instance. */
  readonly perInstanceImbalance?: number;
  readonly perInstanceNote?: string;
  /**
   * The CreateModel, CreateEndpointConfig and CreateEndpoint requests the workflow sent for it, names
   * and role as placeholders (report/deploy-requests.ts). Absent, with `deployNote`, when it created
   * nothing (an existing endpoint, a skipped candidate).
   */
  readonly deploy?: CandidateDeploy;
  readonly deployNote?: string;
  /**
   * A `missed-sla` within the run's noise: the closest step's latency ÷ the SLA's bound, and the
   * run's noise on a p95. Absent without a noise measure (no repeats) or beyond it.
   */
  readonly nearMiss?: NearMiss;
  /** With a quality guard: how its answers compare with the reference's. */
  readonly quality?: QualityVerdictSummary;
  /** The worst of its answers against the reference's, worst first, as its whole verdict keeps them. */
  readonly qualityExamples?: readonly QualityExample[];
  readonly verdict: CandidateVerdict;
  /** Why it won, lost, failed or was skipped, in one sentence. */
  readonly reason: string;
}

export interface ReportSpread extends MeasuredSpread {
  /** Instance-priced candidates: the cost per 1M at the highest and the lowest TPS measured. */
  readonly costPer1MUsd?: { readonly min: number; readonly max: number };
  /**
   * Where a re-run's medians are expected (95 %), from the run's pooled noise (`Report.noise`);
   * wider than the min–max, which holds only this run's measurements (rerun-interval.ts).
   */
  readonly rerun?: RerunRanges;
}

export interface RerunRanges {
  readonly tps: { readonly min: number; readonly max: number };
  /** Absent when the run's latencies gave no noise figure. */
  readonly p95Ms?: { readonly min: number; readonly max: number };
  readonly costPer1MUsd?: { readonly min: number; readonly max: number };
}

/**
 * The run's measured noise: the relative spread of one measurement (standard deviation of the
 * figure's logarithm), pooled over every candidate whose sustainable load was measured more than
 * once. Absent without repeats. Re-run intervals, "within noise" and run comparisons use it.
 */
export interface RunNoise {
  readonly confidence: number;
  /** Candidates pooled. */
  readonly candidates: number;
  readonly tps: PooledNoise;
  /** Absent when fewer than two measurements had latencies. */
  readonly p95Ms?: PooledNoise;
}

export type ReportRenderer = (report: Report) => string;

/** A compiled candidate against its uncompiled twin (compiled-comparison.ts). */
export interface CompiledComparison {
  readonly instanceType?: string;
  readonly uncompiledId: string;
  readonly compiledId: string;
  readonly compiledFor?: string;
  /** The first load step, the same for both. */
  readonly load: number;
  readonly p50Ms: { readonly uncompiled: number; readonly compiled: number };
  /** (compiled ÷ uncompiled − 1) × 100, one decimal: negative is faster. */
  readonly p50ChangePercent: number;
  readonly tps: { readonly uncompiled: number; readonly compiled: number };
}

/** The relative noise of one measurement, pooled over a run's candidates. */
export interface PooledNoise {
  /** Standard deviation of ln(figure): 0.02 is about 2 % per measurement. */
  readonly logSd: number;
  /** Σ (nᵢ − 1) over the candidates pooled. */
  readonly degreesOfFreedom: number;
}

/** The objective's figure as the sweep and the charts name it (objective-figure.ts). */
export interface ObjectiveFigureLabel {
  /** The figure's name and unit, e.g. `USD per 1M inferences`. */
  readonly label: string;
  readonly better: 'lower' | 'higher';
}

/** The sweep's factor grid (sweep-factors.ts). */
export type SweepFactorKind = 'instance-type' | 'instance-count' | 'compiled' | 'environment';

export interface SweepFactor {
  /** `instance type`, `instance count`, `compiled`, or the environment variable's name. */
  readonly name: string;
  readonly kind: SweepFactorKind;
  /** The values it takes, in axis order: numbers ascending (unset first), else as first seen. */
  readonly levels: readonly string[];
}

export interface SweepCell {
  readonly candidateId: string;
  /** The candidate's level of each factor, by factor name. */
  readonly levels: Readonly<Record<string, string>>;
  readonly verdict: CandidateVerdict;
  /** The objective's figure; absent when the candidate has none (it missed the SLA, failed, …). */
  readonly value?: number;
  /** A candidate that missed the SLA: how far (slaMissRatio), when its latency was over a bound. */
  readonly slaRatio?: number;
  /** What the cell says: `≤ $0.1234`, `missed SLA 1.03×`, `failed`. */
  readonly text: string;
}

export interface SweepGrid {
  readonly objective: string;
  /** What the cells' `value` is and which way is better. */
  readonly figure: ObjectiveFigureLabel;
  /** Every factor that varies: `x`'s first, then `y`'s, then the panels'. */
  readonly factors: readonly SweepFactor[];
  /** The factor along the columns: the one with the most levels. */
  readonly x: string;
  /** The factor along the rows: the one with the next most levels. */
  readonly y: string;
  /** The other factors: one panel (a heatmap, a table) per combination of their levels that ran. */
  readonly panels: readonly string[];
  readonly cells: readonly SweepCell[];
  readonly recommendedCandidateId?: string;
}

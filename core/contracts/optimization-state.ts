import type { Quantization } from './quantization.js';
import type { LoadRound } from './load-round.js';
import type { Recommendation } from './recommendation.js';
import type { ModelPackageRef } from './model-package.js';
import type { Shortlist } from './shortlist.js';
import type { OptimizationInput } from './optimization-input.js';
import type { RealtimeScalingRequests } from './scaling-requests.js';
import type { CaughtError } from './caught-error.js';
import type { CleanUpAccount } from './clean-up-account.js';
import type { ExecutionBudgets } from './execution-limits.js';
import type { PlannedFactSource, PlannedPriceSource } from './market-sources.js';
import type { Objective, RunInput, WeightedPayload } from './run-input.js';
import type { AvailabilitySettings, ScalingSettings } from './serving-input.js';
import type { PRICE_TABLE_SOURCE } from './price-source.js';
import type { PlannedPromptSet } from './prompt-set.js';
import type { RoutingStrategy } from './routing-strategy.js';
import type { HostedResourceNames } from './hosted-resources.js';
import type { SummaryComparison } from './run-comparison.js';
import type { LoadPlan } from './load-plan.js';
import type { PlannedQuality, QualityVerdictSummary } from './quality.js';

/**
 * The optimization workflow's contract: its steps, the states other layers name, and every JSON
 * document that crosses a state boundary (what each step takes and gives, the status enums the
 * Choice states compare). The one list from which the workflow construct's props, the step Lambdas
 * in `infra/`, the local runner's handler map and each Lambda's `STEP_NAME` derive, so a missing or
 * misspelt step fails the type-check, never a run. Large data (worker results, reports) stays in
 * the object store; these documents carry pointers.
 *
 * One name per step across layers: state "Deploy candidate" ↔ `lambdas/deploy-candidate.ts` ↔
 * `core/deploy-candidate.ts` ↔ `test/core/deploy-candidate.test.ts`.
 *
 * The former `workflow-state.ts` is folded in here rather than kept as a part shared with the async
 * workflow: everything it held (compilation state, candidate statuses, deployment and outcomes) is
 * the optimization's alone, and the async workflow shares nothing with it but the Catch's
 * `{ Error, Cause }`, which is `CaughtError` in `caught-error.ts`.
 */

/** Each step Lambda of the workflow, by its key in the workflow construct's props. */
export const OPTIMIZATION_STEPS = {
  validateAndPlan: 'validate-and-plan',
  packageModel: 'package-model',
  startCompilation: 'start-compilation',
  checkCompilation: 'check-compilation',
  deployCandidate: 'deploy-candidate',
  checkEndpoint: 'check-endpoint',
  runLoadWorker: 'run-load-worker',
  aggregateLoadTest: 'aggregate-load-test',
  deleteCandidate: 'delete-candidate',
  recommend: 'recommend',
  recordProof: 'record-proof',
  rampScaling: 'ramp-scaling',
  qualityPass: 'quality-pass',
  recordRamp: 'record-ramp',
  cleanUp: 'clean-up',
} as const;
export type OptimizationStepKey = keyof typeof OPTIMIZATION_STEPS;
export type OptimizationStepName = (typeof OPTIMIZATION_STEPS)[OptimizationStepKey];

/**
 * The event each step's Task builds and its core function takes, by the step's key: the workflow's
 * Parameters are type-checked against it (workflows/task-parameters.ts), and the local handler map
 * and the Lambda entries take it. A step of OPTIMIZATION_STEPS without its event here fails the
 * type-check where the step Lambdas are typed (workflows/optimization-workflow.ts).
 */
export interface OptimizationStepEvents {
  readonly validateAndPlan: ValidateAndPlanEvent;
  readonly packageModel: PackageModelEvent;
  readonly startCompilation: StartCompilationEvent;
  /** "Check compilation job" takes the state "Start compilation job" gave, whole. */
  readonly checkCompilation: CompilationState;
  readonly deployCandidate: DeployCandidateEvent;
  readonly checkEndpoint: CheckEndpointEvent;
  readonly runLoadWorker: RunLoadWorkerEvent;
  readonly aggregateLoadTest: AggregateLoadTestEvent;
  readonly deleteCandidate: DeleteCandidateEvent;
  readonly recommend: RecommendEvent;
  readonly recordProof: RecordProofEvent;
  readonly rampScaling: RampScalingEvent;
  readonly recordRamp: RecordRampEvent;
  readonly qualityPass: QualityPassEvent;
  readonly cleanUp: CleanUpStepEvent;
}

/** The same events by step name (`STEP_NAME`), as the local runner's handler map is keyed. */
export type OptimizationStepEventsByName = {
  readonly [Key in OptimizationStepKey as (typeof OPTIMIZATION_STEPS)[Key]]: OptimizationStepEvents[Key];
};

/** The states named outside the workflow construct: by progress reporters, the run API and the CLIs. */
export const OptimizationStates = {
  validateAndPlan: 'Validate and plan',
  runRefused: 'Run refused',
  optimize: 'Optimize',
  packageModel: 'Package model',
  compileEachTarget: 'Compile model for each target',
  startCompilation: 'Start compilation job',
  checkCompilation: 'Check compilation job',
  recordCompilationFailure: 'Record compilation failure',
  benchmarkEachCandidate: 'Benchmark each candidate',
  deployCandidate: 'Deploy candidate',
  checkEndpoint: 'Check endpoint',
  runLoadWorkers: 'Run load workers',
  runLoadWorker: 'Run load worker',
  aggregateLoadTest: 'Aggregate load test',
  runNextLoadSegment: 'Run next load segment',
  runNextLoadRound: 'Run next load round',
  deleteCandidateEndpoint: 'Delete candidate endpoint',
  deleteFailedCandidateEndpoint: 'Delete failed candidate endpoint',
  recordFailedCandidate: 'Record failed candidate',
  /**
   * Interleaved repeats (core/load-test/rounds.ts `interleavesRepeats`): after every
   * candidate's stepped test, each round measures every kept endpoint once more, in turn.
   */
  repeatsInterleaved: 'Repeats interleaved?',
  repeatRoundDue: 'Repeat round due?',
  repeatEachCandidate: 'Repeat each candidate',
  checkRepeatEndpoint: 'Check endpoint before repeat',
  runRepeatLoadWorkers: 'Run repeat load workers',
  runRepeatLoadWorker: 'Run repeat load worker',
  aggregateRepeat: 'Aggregate repeat',
  deleteRepeatedEndpoint: 'Delete repeated endpoint',
  recordFailedRepeat: 'Record failed repeat',
  /** The output-quality guard (run input `quality`): answers recorded per candidate, judged before "Recommend". */
  qualityGuarded: 'Quality guarded?',
  recordCandidateAnswers: 'Record candidate answers',
  endpointKeptForRepeats: 'Endpoint kept for repeats?',
  outputQualityGuarded: 'Output quality guarded?',
  judgeOutputQuality: 'Judge output quality',
  recommend: 'Recommend',
  /** With `keep-recommended`: every candidate endpoint but the recommended one, deleted after the ranking. */
  candidatesKept: 'Candidates kept?',
  deleteCandidatesNotKept: 'Delete candidates not kept',
  /** "Prove the target" (core/serving/prove-target.ts): after "Recommend", before clean-up. */
  proveTarget: 'Prove the target?',
  deployProofEndpoint: 'Deploy proof endpoint',
  checkProofEndpoint: 'Check proof endpoint',
  runProofLoadWorkers: 'Run proof load workers',
  runProofLoadWorker: 'Run proof load worker',
  recordProof: 'Record proof',
  deleteProofEndpoint: 'Delete proof endpoint',
  deleteFailedProofEndpoint: 'Delete failed proof endpoint',
  recordFailedProof: 'Record failed proof',
  correctTheCount: 'Correct the count?',
  planCorrectedProof: 'Plan corrected proof',
  /** "Ramp test" (core/serving/ramp-test.ts): after the proof, before clean-up. */
  rampTest: 'Ramp test?',
  retestTheRamp: 'Re-test the ramp?',
  planRampRetest: 'Plan ramp re-test',
  deployRampEndpoint: 'Deploy ramp endpoint',
  checkRampEndpoint: 'Check ramp endpoint',
  applyRampScaling: 'Apply ramp scaling policy',
  runRampLoadWorkers: 'Run ramp load workers',
  runRampLoadWorker: 'Run ramp load worker',
  aggregateRamp: 'Aggregate ramp load test',
  runNextRampSegment: 'Run next ramp segment',
  recordRamp: 'Record ramp',
  deregisterRampScaling: 'Deregister ramp scaling',
  deleteRampEndpoint: 'Delete ramp endpoint',
  deregisterFailedRampScaling: 'Deregister failed ramp scaling',
  deleteFailedRampEndpoint: 'Delete failed ramp endpoint',
  recordFailedRamp: 'Record failed ramp',
  cleanUpRunResources: 'Clean up run resources',
  cleanUpAfterFailure: 'Clean up after failure',
  /** A redrive resumed a step on the run's deleted endpoints (core/shared/redrive.ts): the run fails. */
  stopRedrivenCandidate: 'Stop redriven candidate',
  stopRedrivenRepeat: 'Stop redriven repeat',
  stopRedrivenAnswers: 'Stop redriven answers',
  stopRedrivenProof: 'Stop redriven proof',
  stopRedrivenRamp: 'Stop redriven ramp',
  runFailed: 'Run failed',
  /** After the success path's clean-up: a run without a recommendation ends in "No recommendation". */
  recommendationMade: 'Recommendation made?',
  explainNoRecommendation: 'Explain no recommendation',
  noRecommendation: 'No recommendation',
  runSucceeded: 'Run succeeded',
} as const;
export type OptimizationState = (typeof OptimizationStates)[keyof typeof OptimizationStates];

/* ---------------------------------------------------------------------------------------------
 * Status enums the Choice states compare, and the per-candidate documents.
 * ------------------------------------------------------------------------------------------- */

/** What "Check compilation job" reports; the workflow's Choice matches these. */
export const CompilationOutcomes = {
  inProgress: 'IN_PROGRESS',
  completed: 'COMPLETED',
  failed: 'FAILED',
} as const;
export type CompilationOutcome = (typeof CompilationOutcomes)[keyof typeof CompilationOutcomes];

export interface CompilationState {
  /** The Neo target, or the optimization's id (kebab-case: never a Neo target). */
  readonly target: string;
  /** `optimization`: a SageMaker optimization job (CreateOptimizationJob); absent: a Neo compilation job. */
  readonly kind?: 'optimization';
  readonly jobName: string;
  readonly status: CompilationOutcome;
  readonly waitSeconds: number;
  readonly deadlineEpochMs: number;
  readonly artifactUri?: string;
  /** `artifactUri` is an S3 prefix of uncompressed files (an optimization job's output on AWS). */
  readonly artifactUncompressed?: boolean;
  readonly inferenceImage?: string;
  readonly failureReason?: string;
  readonly note?: string;
  /** A Catch's `{ Error, Cause }` when starting or checking the job threw. */
  readonly error?: CaughtError;
}

/** A candidate's progress through deploy → in service → measured, as the Choices see it. */
export const CandidateStatuses = {
  skipped: 'SKIPPED',
  deploying: 'DEPLOYING',
  inService: 'IN_SERVICE',
  measured: 'MEASURED',
  /** A load worker started late: "Aggregate load test" asks for the load test once more. */
  rerun: 'RERUN',
  /** A load worker started late again on the re-run: the figures do not describe the endpoint. */
  measurementProblem: 'MEASUREMENT_PROBLEM',
  /** The load test's segment ended before its schedule: the workers run the next segment. */
  nextSegment: 'NEXT_SEGMENT',
  /** The stepped load test is over: the workers run a knee probe or a repeat (load-test/rounds.ts). */
  nextRound: 'NEXT_ROUND',
  /**
   * Interleaved repeats: the candidate's figures so far are stored and its endpoint kept
   * (`keptDeployment`) for its next repeat, in the next round over every candidate.
   */
  repeatsPending: 'REPEATS_PENDING',
  failed: 'FAILED',
} as const;
export type CandidateStatus = (typeof CandidateStatuses)[keyof typeof CandidateStatuses];

/**
 * One segment of a load test too long for one worker invocation (core/load-test/engine.ts
 * `LoadSegment`): its place in the schedule and the shared start of its workers.
 */
export interface LoadSegmentStart {
  readonly index: number;
  readonly startEpochMs: number;
}

/**
 * One round of a load test (core/load-test/rounds.ts `LoadRound`): a one-step test at one
 * load, run by all workers from a shared start after the stepped schedule.
 */
export interface LoadRoundStart {
  readonly index: number;
  readonly kind: 'knee' | 'repeat';
  readonly load: number;
  readonly startEpochMs: number;
}

export interface DeploymentState {
  readonly candidateId: string;
  readonly endpointName: string;
  readonly status: CandidateStatus;
  readonly waitSeconds: number;
  readonly deadlineEpochMs: number;
  /** When CreateEndpoint was asked for: billing runs from about then until the endpoint is deleted. */
  readonly createdEpochMs?: number;
  readonly skipReason?: string;
  /** Set once in service: the shared start of every load worker, and their indexes (Map items). */
  readonly loadStartEpochMs?: number;
  readonly workerIndexes?: readonly number[];
  /**
   * What DescribeEndpoint said once the endpoint was in service: the instance type and current
   * count the test ran on, and the variant whose CloudWatch metrics describe it. For an existing
   * endpoint these, not the run input's `existingEndpoint` figures, price the candidate.
   */
  readonly instanceType?: string;
  readonly instanceCount?: number;
  readonly variantName?: string;
  /** Set by "Re-run load test": this is the candidate's second (and last) load test. */
  readonly loadTestRerun?: boolean;
  /**
   * Set by "Run next load segment" from the outcome's `nextSegment`: the segment the workers run
   * now. Absent: segment 0, from `loadStartEpochMs`.
   */
  readonly loadSegment?: LoadSegmentStart;
  /**
   * Set by "Run next load round" from the outcome's `nextRound`: the round the workers run now,
   * instead of the schedule (`loadSegment` then stays the stepped test's last segment).
   */
  readonly loadRound?: LoadRoundStart;
}

export interface WorkerOutcome {
  readonly workerIndex: number;
  readonly resultUri: string;
  readonly stoppedBecause: string;
}

export interface CandidateOutcome {
  readonly candidateId: string;
  readonly status: CandidateStatus;
  readonly resultUri?: string;
  readonly sustainableTps?: number | null;
  /** When the candidate's endpoint was created (absent for an existing endpoint). */
  readonly endpointCreatedEpochMs?: number;
  /** The endpoint as it was tested (DeploymentState's figures): what the report prices. */
  readonly instanceType?: string;
  readonly instanceCount?: number;
  readonly variantName?: string;
  readonly skipReason?: string;
  /** Why the load test's figures cannot be trusted (RERUN, MEASUREMENT_PROBLEM): late workers. */
  readonly measurementProblem?: string;
  /** NEXT_SEGMENT: the segment the workers run next, from a new shared start. */
  readonly nextSegment?: LoadSegmentStart;
  /** NEXT_ROUND: the round the workers run next, from a new shared start. */
  readonly nextRound?: LoadRoundStart;
  /** REPEATS_PENDING: the repeat the candidate's next interleaved round runs. */
  readonly pendingRepeat?: LoadRound;
  /**
   * REPEATS_PENDING: the endpoint kept for the interleaved repeats (as "Check endpoint" left it),
   * which "Repeat each candidate" checks, measures and finally deletes. Still present, naming the
   * deleted endpoint, on an outcome whose repeat failed (`repeatError`).
   */
  readonly keptDeployment?: DeploymentState;
  /** A Catch's `{ Error, Cause }` when an interleaved repeat failed: the figures before it stand. */
  readonly repeatError?: CaughtError;
  /** A Catch's `{ Error, Cause }`, kept by the workflow when a candidate's steps failed. */
  readonly error?: CaughtError;
  /** A Catch's `{ Error, Cause }` when "Record candidate answers" failed: the guard cannot judge it. */
  readonly answersError?: CaughtError;
  /** The output-quality verdict ("Judge output quality"), when the run has a quality guard. */
  readonly quality?: QualityVerdictSummary;
}

/* ---------------------------------------------------------------------------------------------
 * Serving the target: the proof and the ramp test (core/serving/prove-target.ts and
 * ramp-test.ts hold their arithmetic).
 * ------------------------------------------------------------------------------------------- */

/** What the proof came to: `skipped` when it did not run (off, or nothing it could deploy). */
export const PROOF_STATUSES = ['held', 'not-held', 'failed', 'skipped'] as const;
export type ProofStatus = (typeof PROOF_STATUSES)[number];

/** The plan's proof settings (`prove`), as "Validate and plan" wrote them with a target. */
export interface ProvePlan {
  readonly enabled: boolean;
  /**
   * Proofs with a corrected count after one that did not hold: 1, or 0 when the worst case with
   * it passes the history budget, the run's timeout or `maxCostUsd`. @default 0
   */
  readonly corrections?: number;
  /** Workers of the proof's step (`proofWorkers`), counted in the history budget at planning. */
  readonly workers: number;
  /** Why the proof cannot run although asked for (e.g. steps longer than one invocation). */
  readonly skipReason?: string;
}

/** What "Recommend" hands the proof phase (`summary.proofRequest`): small, the plan stays where it is. */
export interface ProofRequest {
  readonly targetTps: number;
  readonly instances: number;
  /** 1, or 2 for the corrected count after a proof that did not hold. @default 1 */
  readonly attempt?: number;
  /** The winner with the computed count, named `<winner>-prove` after the run. */
  readonly candidate: PlannedCandidate;
  /** One open-model step at the target, run by `workers` workers in one invocation each. */
  readonly loadPlan: LoadPlan;
}

/** What "Record proof" gives (`summary.proof` after the phase): the verdict, for the summary line. */
export interface ProofOutcome {
  readonly status: ProofStatus;
  readonly candidateId?: string;
  readonly instances?: number;
  readonly note: string;
  /** After a proof that did not hold, when the plan allows one: the same proof with a corrected count. */
  readonly correction?: ProofRequest;
  /**
   * On a skipped proof: no candidate that met the SLA can carry the target (an instance quota, the
   * instances an endpoint may have, serverless concurrency), so the target is not served at all.
   */
  readonly targetNotCarried?: true;
}

/** What the ramp came to: `skipped` when it did not run (off, or nothing to ramp). */
export const RAMP_STATUSES = ['held', 'not-held', 'failed', 'skipped'] as const;
export type RampStatus = (typeof RAMP_STATUSES)[number];

/** The plan's ramp settings (`rampTest`), as "Validate and plan" wrote them with a target. */
export interface RampTestPlan {
  readonly enabled: boolean;
  /**
   * Ramps once more at the advised headroom (or minimum) after one that broke the SLA: 1, or 0
   * when the worst case with it passes the history budget, the run's timeout or `maxCostUsd`.
   * @default 0
   */
  readonly retests?: number;
  /** The ramp's window: the arrival rate rises over this many seconds. */
  readonly seconds: number;
  /** Workers of the ramp (`proofWorkers` at the peak), counted in the history budget at planning. */
  readonly workers: number;
}

/** What "Recommend" hands the ramp phase (`summary.rampRequest`). */
export interface RampRequest {
  /** 1, or 2 for the re-test at the advised headroom after a ramp that broke the SLA. @default 1 */
  readonly attempt?: number;
  /** The winner at the policy's minimum, named `<winner>-ramp` after the run (`-ramp-2` re-tested). */
  readonly candidate: PlannedCandidate;
  /** One open-model ramp step from `fromTps` to `toTps` (contracts/load-plan.ts `ramp`). */
  readonly loadPlan: LoadPlan;
  readonly fromTps: number;
  readonly toTps: number;
  /** The policy's figures the arithmetic judges by (ramp.ts `RampInput`). */
  readonly perInstanceTps: number;
  readonly headroom: number;
  readonly minInstances: number;
  readonly maxInstances: number;
  readonly targetInvocationsPerInstance: number;
  /** The report's two requests, aimed at the ramp's endpoint. */
  readonly scaling: RealtimeScalingRequests;
}

/** What "Record ramp" gives (`summary.ramp` after the phase): the verdict, for the summary line. */
export interface RampVerdict {
  readonly status: RampStatus;
  readonly note: string;
  /** After a ramp that broke the SLA, when the plan allows one: the ramp at the advised headroom. */
  readonly retest?: RampRequest;
}

/* ---------------------------------------------------------------------------------------------
 * What travels between the states, step by step.
 * ------------------------------------------------------------------------------------------- */

/** "Validate and plan" takes the execution name and the user's run input (run-input.ts). */
export interface ValidateAndPlanEvent {
  readonly runId: string;
  readonly input: unknown;
}

export interface PlannedCompilation {
  /** The Neo target, or the optimization's id. */
  readonly target: string;
  readonly jobName: string;
  readonly outputUri: string;
  /** The target's Neuron compiler flags (`compilation.compilerOptions`), sent as its CompilerOptions. */
  readonly compilerOptions?: string;
  /** The target's int8 quantization (`compilation.quantization`): local mode only, refused on AWS. */
  readonly quantization?: Quantization;
  /**
   * Set for a SageMaker optimization job (`compilation.optimizations`): what CreateOptimizationJob
   * gets besides the run's model and tags. The job is an item of the same compile Map as the Neo
   * targets, through the same Start → Wait → Check states, so one history model counts both.
   */
  readonly optimization?: PlannedOptimization;
}

export type PlannedOptimization = Omit<OptimizationInput, 'id'>;

export interface PlannedCandidate {
  readonly id: string;
  /** `existing`: the user's endpoint, load tested as it is, never created nor deleted. */
  readonly kind: 'realtime' | 'serverless' | 'existing';
  readonly instanceType?: string;
  readonly initialInstanceCount: number;
  readonly serverless?: { readonly memorySizeMb: number; readonly maxConcurrency: number };
  readonly compiledFor?: string;
  /** The optimization (`compilation.optimizations` id) whose model the candidate serves. */
  readonly optimizedBy?: string;
  /** The candidate's `routingStrategy`: its variant's `RoutingConfig`; absent, SageMaker routes at random. */
  readonly routingStrategy?: RoutingStrategy;
  /** Model environment, then the candidate's, then its environment-range combination. */
  readonly environment: Readonly<Record<string, string>>;
  readonly modelName: string;
  readonly endpointConfigName: string;
  readonly endpointName: string;
  readonly usdPerHour?: number;
  /**
   * `price-list`: read live from the AWS Price List API (or its copy of the day) at planning, for
   * the region and day of `estimate.prices`; `price-table`: a row of the recorded table, whose
   * region and source date are `priceRegion` and `priceAsOf`.
   */
  readonly priceSource: 'price-list' | 'price-table' | 'run-input' | 'serverless-per-second' | 'unknown';
  /** The region a `price-list` or `price-table` price is for (the table may price another region's run). */
  readonly priceRegion?: string;
  /** The day a `price-list` price was read, or the date of the recorded table row's source. */
  readonly priceAsOf?: string;
  readonly estimatedCostUsd: number;
  /**
   * Set on the proof's candidate (core/serving/prove-target.ts): the winner it deploys again
   * with the computed count. Its endpoint is deleted whatever the clean-up policy.
   */
  readonly proofOf?: string;
}

/**
 * A payload of the run's mix, with its size (bytes) as "Validate and plan" read it. A run with
 * `prompts` has one per bucket that holds prompts: its `uri` the prompt set's, its weight the
 * bucket's prompts, its size their bodies', and `bucket` naming it.
 */
export type PlannedPayload = WeightedPayload & {
  readonly sizeBytes: number;
  readonly bucket?: { readonly name: string; readonly maxChars?: number };
};

/** What "Validate and plan" gives: the `$.plan` every later state reads. */
export interface RunPlan {
  readonly runId: string;
  readonly name?: string;
  /** The Model Registry package version the run measures, when it names one (run input `modelPackage`). */
  readonly modelPackage?: ModelPackageRef;
  readonly artifactsBucket: string;
  readonly runPrefixUri: string;
  /** `packagedUri` is absent for a Hugging Face Hub model without inference code: it has no model data. */
  readonly model?: RunInput['model'] & { readonly packagedUri?: string; readonly needsPackaging: boolean };
  /** The run's payloads (`payload` is a mix of one), each with its size as the object store has it. */
  readonly payloads: readonly PlannedPayload[];
  /** The prompt set the bodies are built from, when the run input has `prompts` (one payload a bucket). */
  readonly prompts?: PlannedPromptSet;
  readonly compilations: readonly PlannedCompilation[];
  readonly compilationMaxRuntimeSeconds: number;
  readonly candidates: readonly PlannedCandidate[];
  /**
   * The output-quality guard (run input `quality`), its reference a planned candidate: each
   * candidate's answers are recorded after its load test and judged before "Recommend".
   */
  readonly quality?: PlannedQuality;
  /** The planner's choice of instance types, when the run input asked for a shortlist. */
  readonly shortlist?: Shortlist;
  readonly existingEndpoint?: RunInput['existingEndpoint'];
  readonly loadPlan: LoadPlan;
  readonly sla: RunInput['sla'];
  readonly objective: Objective;
  /** The run input's serving settings, read with `sla.targetTps`. @default their schema defaults */
  readonly availability?: AvailabilitySettings;
  readonly scaling?: ScalingSettings;
  /** "Prove the target" after "Recommend": only with a target (core/serving/prove-target.ts). */
  readonly prove?: ProvePlan;
  /** "Ramp test" after the proof: only with a target (core/serving/ramp-test.ts). */
  readonly rampTest?: RampTestPlan;
  /**
   * Instance type → the account's endpoint-instance quota, as "Validate and plan" read it; only with
   * a target TPS, whose counts it caps. Absent when the quotas were not read.
   */
  readonly instanceQuotas?: Readonly<Record<string, number>>;
  readonly cleanupPolicy: RunInput['cleanup']['policy'];
  readonly maxConcurrentCandidates: number;
  /**
   * Times a candidate's load test may run again after a worker started late: 1, or 0 when the
   * run's worst-case history has no room for re-runs (planning/history-limit.ts). @default 1
   */
  readonly loadTestReruns?: number;
  /**
   * The worst-case history and largest state the limits were checked with ("Validate and plan",
   * planning/optimization-limits.ts), shown by the local `--plan`. Set by the planner; absent in older plans.
   */
  readonly budgets?: ExecutionBudgets;
  /**
   * The schedule length of one load worker invocation: a load test longer than this runs as
   * consecutive segments (core/load-test/engine.ts). @default awsSegmentSeconds(loadPlan)
   */
  readonly loadSegmentSeconds?: number;
  /**
   * What the planner accepted but the user should know before starting, e.g. an open-model step
   * faster than the load workers can sign (load-test/worker-ceiling.ts). Absent when none.
   */
  readonly warnings?: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  /** Where the candidates' instance facts came from (EC2 live, or the table). */
  readonly instanceFacts?: PlannedFactSource;
  readonly estimate: {
    readonly totalUsd: number;
    readonly maxCostUsd?: number;
    readonly priceTable: typeof PRICE_TABLE_SOURCE;
    /** Where the instance prices came from (live, cached or the table), for which region and day. */
    readonly prices?: PlannedPriceSource;
    readonly assumptions: readonly string[];
    /**
     * The run's wall-clock time on AWS: `typical` with the cost's assumptions (endpoints 10 min to
     * create and 2 to delete per wave, compilation jobs their whole runtime, every round run);
     * `worst` as the run's time limit is checked (planning/run-time-estimate.ts `worstRunSeconds`). Set by
     * the planner; absent in older plans.
     */
    readonly durationSeconds?: { readonly typical: number; readonly worst: number };
  };
}

export interface PackageModelEvent {
  readonly plan: Pick<RunPlan, 'runId' | 'model' | 'runPrefixUri' | 'compilations'>;
}

/** What "Package model" gives. */
export interface PackagedModel {
  /** `undefined` when the run tests an existing endpoint and has no model. */
  readonly modelDataUrl?: string;
  readonly sha256?: string;
  readonly sizeBytes?: number;
  /**
   * The archive's files, uncompressed under one S3 prefix (ending with `/`): the source an optimization
   * job reads (core/package-model.ts). Set only when the run has optimizations.
   */
  readonly modelPrefixUri?: string;
  /** True when an artifact made earlier (same inputs) or the user's own model.tar.gz was used. */
  readonly reused: boolean;
}

/** "Start compilation job" takes one target's planned job; it and "Check compilation job" give `CompilationState`. */
export interface StartCompilationEvent {
  readonly plan: RunPlan;
  readonly compilation: PlannedCompilation;
  readonly packagedModel: PackagedModel;
}

/**
 * Steps that deploy, check, measure or scale a run's endpoint get the context object's
 * `Execution.RedriveCount`: a redriven run is refused there (core/shared/redrive.ts).
 */
export interface RedriveAware {
  /** 0 (or absent) on the execution's first attempt. */
  readonly redriveCount?: number;
}

export interface DeployCandidateEvent extends RedriveAware {
  readonly plan: RunPlan;
  readonly candidate: PlannedCandidate;
  readonly packagedModel: PackagedModel;
  readonly compilations: readonly CompilationState[];
}

export interface CheckEndpointEvent extends RedriveAware {
  readonly plan: Pick<RunPlan, 'loadPlan' | 'existingEndpoint'>;
  readonly deployment: DeploymentState;
}

export interface RunLoadWorkerEvent extends RedriveAware {
  readonly plan: Pick<
    RunPlan,
    'runId' | 'artifactsBucket' | 'payloads' | 'prompts' | 'loadPlan' | 'sla' | 'loadSegmentSeconds'
  >;
  readonly candidateId: string;
  readonly deployment: Pick<
    DeploymentState,
    'endpointName' | 'loadStartEpochMs' | 'loadSegment' | 'loadRound'
  >;
  readonly workerIndex: number;
}

export interface AggregateLoadTestEvent {
  readonly plan: Pick<RunPlan, 'runId' | 'artifactsBucket' | 'loadPlan' | 'sla' | 'loadTestReruns'>;
  readonly candidateId: string;
  /** The workers of the segment that just ended (all of the load test when it has one). */
  readonly workers: readonly WorkerOutcome[];
  /** As "Check endpoint" left it (with interleaved repeats, kept whole for the next repeat). */
  readonly deployment: Pick<
    DeploymentState,
    | 'createdEpochMs'
    | 'instanceType'
    | 'instanceCount'
    | 'variantName'
    | 'loadTestRerun'
    | 'loadSegment'
    | 'loadRound'
  > &
    Partial<DeploymentState>;
}

export interface DeleteCandidateEvent {
  readonly plan: Pick<RunPlan, 'cleanupPolicy'>;
  readonly candidate: PlannedCandidate;
}

/** What "Delete candidate endpoint" gives. */
export interface DeletedResources {
  readonly endpoints: readonly string[];
  readonly endpointConfigs: readonly string[];
  readonly models: readonly string[];
  readonly stoppedCompilationJobs: readonly string[];
}

/** "Record candidate answers": the candidate's endpoint answers the payload set once (the reference twice). */
export interface RecordAnswersEvent extends RedriveAware {
  readonly action: 'record';
  readonly plan: Pick<RunPlan, 'runId' | 'artifactsBucket' | 'payloads' | 'quality' | 'loadPlan'>;
  readonly candidateId: string;
  readonly deployment: Pick<DeploymentState, 'endpointName'>;
}

/** "Judge output quality": every candidate's answers against the reference's, verdicts in the outcomes. */
export interface JudgeQualityEvent {
  readonly action: 'judge';
  readonly plan: Pick<RunPlan, 'runId' | 'artifactsBucket' | 'quality'>;
  readonly candidates: readonly CandidateOutcome[];
}

export type QualityPassEvent = RecordAnswersEvent | JudgeQualityEvent;

export interface RecommendEvent {
  readonly plan: RunPlan;
  readonly candidates: readonly CandidateOutcome[];
  /** What "Deploy candidate" read: the report shows each candidate's requests from them. */
  readonly packagedModel?: PackagedModel;
  readonly compilations?: readonly CompilationState[];
}

/* ---------------------------------------------------------------------------------------------
 * The run's outcome: one vocabulary for the report, the execution's end state, the run summary
 * (SNS attribute `outcome`), the run API's status and the CLIs' exit codes (exit-codes.ts).
 * ------------------------------------------------------------------------------------------- */

/**
 * What a candidate came to, in the report and the summary. `stalled`: its endpoint stopped
 * answering during a load step (load-test/stall.ts), a hang rather than a capacity limit, so it is
 * not ranked whatever its figures before; `model-errors`: every request of its first load step
 * failed with a model error (the container answered 4xx/5xx), so the model or the payload is
 * wrong, not the instance too small; `measurement-problem`: a load worker started late twice, so
 * its figures get no SLA verdict; `quality-failed`: it met the SLA but its answers broke the run's
 * output-quality rule; `quality-unknown`: it met the SLA but the guard could not judge its answers
 * (and the run input does not allow that). Neither is ranked.
 */
export const CANDIDATE_VERDICTS = [
  'recommended',
  'runner-up',
  'missed-sla',
  'quality-failed',
  'quality-unknown',
  'stalled',
  'model-errors',
  'measurement-problem',
  'failed',
  'skipped',
] as const;
export type CandidateVerdict = (typeof CANDIDATE_VERDICTS)[number];

/** How many candidates came to each verdict. */
export type VerdictCounts = Readonly<Record<CandidateVerdict, number>>;

/**
 * How a run ended:
 * - `recommended`: a recommendation, and every candidate was measured against the SLA;
 * - `partial`: a recommendation, but some candidates failed, were skipped, had model errors or a
 *   measurement problem (the winner is the best of fewer candidates than planned);
 * - `no-candidate-met-sla`: no recommendation; at least one candidate was measured and missed;
 * - `no-candidate-passed-quality`: no recommendation; candidates met the SLA, but none of them kept
 *   to the output-quality rule (or could be judged by it);
 * - `all-candidates-failed`: no recommendation; no candidate could be judged against the SLA.
 * The last two end the execution FAILED with `NoRecommendationError` (the report still written).
 */
export const RunOutcomes = {
  recommended: 'recommended',
  partial: 'partial',
  noCandidateMetSla: 'no-candidate-met-sla',
  noCandidatePassedQuality: 'no-candidate-passed-quality',
  allCandidatesFailed: 'all-candidates-failed',
} as const;
export type RunOutcome = (typeof RunOutcomes)[keyof typeof RunOutcomes];

/** The outcomes without a recommendation: the workflow's "Recommendation made?" fails on these. */
export const NO_RECOMMENDATION_OUTCOMES: readonly RunOutcome[] = [
  RunOutcomes.noCandidateMetSla,
  RunOutcomes.noCandidatePassedQuality,
  RunOutcomes.allCandidatesFailed,
];

/**
 * The cause (JSON) of a run that ended in "No recommendation": `errorMessage` first, as in a
 * Lambda's cause, so that readers of causes show the sentence; the report's location for the run
 * API and the CLIs; the clean-up's message under `cleanUp`, as every failed run's cause has it.
 */
export interface NoRecommendationCause {
  readonly errorMessage: string;
  readonly outcome: RunOutcome;
  readonly counts: VerdictCounts;
  readonly report: RunSummary['report'];
  readonly cleanUp?: string;
  /** As the summary's: a regressed Model Registry run says so even when it recommends nothing. */
  readonly comparison?: RunSummary['comparison'];
}

/** What "Recommend" gives: a short summary with pointers to the report. */
export interface RunSummary {
  readonly runId: string;
  readonly outcome: RunOutcome;
  /** Each verdict's count, e.g. `{ recommended: 1, 'runner-up': 1, failed: 1, … }`. */
  readonly counts: VerdictCounts;
  /** One sentence: the outcome and what happened to the candidates (the report's first line). */
  readonly outcomeText: string;
  readonly recommendation: Recommendation | null;
  readonly noRecommendationReason?: string;
  readonly candidates: readonly { readonly id: string; readonly verdict: string; readonly reason: string }[];
  /** With the run input's `quality` guard: its rule and reference in one sentence. */
  readonly quality?: string;
  readonly report: { readonly json: string; readonly markdown: string; readonly html: string };
  /** What clean-up must keep: the recommended endpoint when the policy is `keep-recommended`. */
  readonly keep?: HostedResourceNames;
  /**
   * A run with a `modelPackage`: the verdict against the group's last approved version; null for
   * other runs. "Recommend" always sets it: "Explain no recommendation" reads it by path, and a
   * path that is missing fails a Step Functions state.
   */
  readonly comparison?: SummaryComparison | null;
  /** With a target and the proof on: what "Prove the target" deploys and runs. */
  readonly proofRequest?: ProofRequest;
  /**
   * With a target: the proof's verdict; "Recommend" sets it when the proof is skipped, "Record
   * proof" when it ran (or failed).
   */
  readonly proof?: ProofOutcome;
  /** With a target and the ramp test on: what "Ramp test" deploys, attaches and runs. */
  readonly rampRequest?: RampRequest;
  /**
   * With a target: the ramp's verdict; "Recommend" sets it when the ramp is skipped, "Record ramp"
   * when it ran (or failed).
   */
  readonly ramp?: RampVerdict;
}

/**
 * "Record proof" (and "Record failed proof"): the proof's workers, or the error that ended it; the
 * report's pointers to update. The proof's endpoint is deleted after it (or before, on failure).
 */
export interface RecordProofEvent {
  readonly plan: Pick<RunPlan, 'runId' | 'artifactsBucket' | 'sla' | 'prove' | 'instanceQuotas'>;
  readonly summary: Pick<RunSummary, 'report'> & { readonly proofRequest: ProofRequest };
  readonly deployment?: Pick<DeploymentState, 'endpointName' | 'variantName' | 'instanceCount'>;
  readonly workers?: readonly WorkerOutcome[];
  /** A Catch's `{ Error, Cause }` when a step of the proof failed. */
  readonly error?: CaughtError;
}

/**
 * "Record ramp" (and "Record failed ramp"): the ramp's aggregated outcome (its merged result and
 * timeline stored at `resultUri`), or the error that ended it; the report's pointers to update. The
 * ramp's scaling is deregistered and its endpoint deleted after it (or before, on failure).
 */
export interface RecordRampEvent {
  readonly plan: Pick<RunPlan, 'runId' | 'sla' | 'rampTest' | 'instanceQuotas'>;
  readonly summary: Pick<RunSummary, 'report'> & { readonly rampRequest: RampRequest };
  readonly outcome?: Pick<CandidateOutcome, 'status' | 'resultUri' | 'measurementProblem'>;
  /** A Catch's `{ Error, Cause }` when a step of the ramp failed. */
  readonly error?: CaughtError;
}

/**
 * States "Apply ramp scaling policy" and "Deregister ramp scaling" (and "Deregister failed ramp
 * scaling"): the ramp's endpoint gets the report's two requests as they are (aimed at it,
 * serving/ramp-test.ts `scalingRequestsFor`), and loses them before it is deleted, on every path.
 */
export type RampScalingEvent =
  | (RedriveAware & {
      readonly action: 'apply';
      readonly scaling: RealtimeScalingRequests;
      /** As "Check ramp endpoint" left it: in service, the workers' indexes set. */
      readonly deployment: DeploymentState;
    })
  | { readonly action: 'deregister'; readonly endpointName: string };

export interface CleanUpEvent {
  readonly plan: Pick<RunPlan, 'runId'>;
  /**
   * On success: the recommendation's summary, whose `keep` names the endpoint to keep, if any, and
   * whose `cleanUp` is the previous round's account (the workflow writes each round's there).
   */
  readonly summary?: Pick<RunSummary, 'keep'> & { readonly cleanUp?: CleanUpAccount };
  /** On failure: why the run is cleaning up early (a Catch's `{ Error, Cause }`). */
  readonly error?: CaughtError;
  /** On failure: the previous round's account. */
  readonly cleanUp?: CleanUpAccount;
  /**
   * Names kept whatever the summary says: what carries the keep tag when no summary is at hand
   * (the failed-run clean-up, after an execution that ended during its success-path clean-up).
   */
  readonly keepNames?: readonly string[];
}

/** What every clean-up returns: its account (core/contracts/clean-up-account.ts). */
export type CleanUpResult = CleanUpAccount;

/** What the optimization's clean-up states send: the whole plan, whose candidates name the stored results. */
export interface CleanUpStepEvent extends CleanUpEvent {
  readonly plan: Pick<RunPlan, 'runId' | 'artifactsBucket' | 'runPrefixUri' | 'candidates'>;
}

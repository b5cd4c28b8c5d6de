import {
  LAMBDA_ARM64_USD_PER_GB_SECOND,
  PRICE_TABLE_SOURCE,
  SERVERLESS_USD_PER_GB_SECOND,
} from './catalog/instances.js';
import { compilationSupportWarnings } from './catalog/neo-support.js';
import { unknownInstanceFactWarnings } from './planning/unknown-instance-facts.js';
import { type PriceBook, readPriceBook } from './planning/price-source.js';
import { readFactBook } from './planning/instance-facts-source.js';
import type { LiveReadRetry } from './planning/live-read.js';
import type { HostingPriceList, InstanceFactsReader } from './catalog/market.js';
import { BudgetExceededError, type InputIssue, InvalidRunInputError } from './contracts/errors.js';
import {
  COMPILATION_CONCURRENCY,
  DEFAULT_POLL_SCHEDULE,
  optimizationBudgets,
  optimizationLimitIssues,
  optimizationWorstRunSeconds,
  plannedLoadTestReruns,
  roundsFitLimits,
  type PollSchedule,
} from './contracts/execution-limits.js';
import { isValidRunId, resourceName, runTags } from './contracts/names.js';
import { RUN_INPUT_PREFIXES, runPrefixKey, s3Uri } from './contracts/object-uri.js';
import {
  type CandidateInput,
  INVOKE_ENDPOINT_MAX_BODY_BYTES,
  objectiveOf,
  payloadField,
  type RunInput,
  runInputSchema,
  runPayloads,
} from './contracts/run-input.js';
import type {
  PlannedCandidate,
  PlannedPayload,
  RunPlan,
  ValidateAndPlanEvent,
} from './contracts/optimization-state.js';
import { PROMPT_SET_LIMITS, promptFormatOf } from './contracts/prompt-set.js';
import { describeGiven, parseOrThrow } from './contracts/validation.js';
import { candidatesInFlightWithin, checkInstanceQuotas } from './instance-quotas.js';
import { optimizationInputIssues, rampSecondsThatFit } from './planning/input-rules.js';
import { awsSegmentSeconds, type LoadPlan, stepPeriodMs } from './load-test/plan.js';
import { type PlannedPromptSet, preparePromptSet } from './load-test/prompts/prompt-set.js';
import {
  interleavedRepeatRounds,
  interleavesRepeats,
  measuringSeconds,
  repeatsOf,
} from './load-test/rounds.js';
import { workerCeilingWarning } from './load-test/worker-ceiling.js';
import {
  artifactPrefixIssues,
  capIssues,
  checkObjects,
  type ObjectReference,
  objectUriIssues,
} from './object-checks.js';
import type { InstanceQuotaReader, Logger, ObjectStore } from './ports.js';
import { COMPILATION_DEADLINE_MARGIN_SECONDS } from './shared/compilation-job.js';
import { proofSkipReason, proofWorkers } from './serving/prove-target.js';
import { DEFAULT_RAMP_SECONDS, RAMP_SECONDS_TO_SCALE_ON_AWS } from './contracts/serving-input.js';
import { rampWorkers } from './serving/ramp-test.js';
import { ENDPOINT_DEADLINE_SECONDS } from './shared/endpoint-deployment.js';
import { streamPayloadShape } from './shared/stream-payload-shape.js';
import { ESTIMATE_ASSUMPTIONS } from './shared/estimate-assumptions.js';

/**
 * SageMaker's request body limits: `InvokeEndpoint`'s `Body` is at most 6,291,456 bytes (6 MB;
 * SageMaker Runtime API reference, InvokeEndpoint,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html), and
 * "the maximum request and response payload size for serverless invocations is 4 MB" (SageMaker
 * developer guide, "Invoke a serverless endpoint",
 * https://docs.aws.amazon.com/sagemaker/latest/dg/serverless-endpoints-invoke.html).
 */
export const MAX_REALTIME_PAYLOAD_BYTES = INVOKE_ENDPOINT_MAX_BODY_BYTES;
export const MAX_SERVERLESS_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * All of a run's payloads together: each load worker reads them once and holds them for the whole
 * test, beside its histograms, in a 2,048 MB Lambda (infra/constructs/optimization-steps.ts).
 */
export const MAX_PAYLOAD_SET_BYTES = 256 * 1024 * 1024;

/** Shared with the async planner (handlers/shared/estimate-assumptions.ts), which is no step module. */
export { ESTIMATE_ASSUMPTIONS };

export interface ValidateAndPlanDeps {
  readonly store: ObjectStore;
  readonly artifactsBucket: string;
  /** `file://` URIs are for local mode only: on AWS the Lambdas cannot read the user's disk. */
  readonly allowFileUris: boolean;
  /**
   * Where candidates will run. With a region (AWS), every uncompiled candidate's serving image
   * must resolve now, and Neo must compile the model for every target there, before anything is
   * created; locally (undefined) the project's model server serves every model and its compiler
   * compiles any ONNX model for any target, so there is nothing to check.
   */
  readonly servingRegion?: string;
  /**
   * The back-off of the endpoint and compilation polls, for the worst-case history count.
   * @default DEFAULT_POLL_SCHEDULE for both (the Lambdas' default; locally too: the quota is AWS's)
   */
  readonly polling?: { readonly endpoint: PollSchedule; readonly compilation: PollSchedule };
  /**
   * The schedule one load worker invocation runs; a longer load test runs as segments. Shorter in
   * local tests, so that short tests run as several. @default awsSegmentSeconds(loadPlan)
   */
  readonly loadSegmentSeconds?: number;
  /** The account's instance quotas (handlers/instance-quotas.ts). @default not checked */
  readonly instanceQuotas?: InstanceQuotaReader;
  /**
   * The live market of `servingRegion` (planning/price-source.ts, instance-facts-source.ts): prices,
   * kept for the day in the artifacts bucket, and EC2's instance facts. @default the recorded tables
   */
  readonly market?: {
    /** The region whose market is read. @default servingRegion */
    readonly region?: string;
    readonly prices?: HostingPriceList;
    readonly facts?: InstanceFactsReader;
    /** Write the day's price read to the artifacts bucket. @default true (the run API's plan route reads only) */
    readonly keepPrices?: boolean;
    /** How throttled reads are retried. @default DEFAULT_LIVE_READ_RETRY */
    readonly retry?: LiveReadRetry;
  };
  /** @default the system clock: the day of a price read, the age of the recorded prices */
  readonly now?: () => Date;
  readonly logger: Logger;
}

/** State "Validate and plan": refuses bad input and over-budget runs before anything is created. */
export async function validateAndPlan(
  event: ValidateAndPlanEvent,
  deps: ValidateAndPlanDeps,
): Promise<RunPlan> {
  if (!isValidRunId(event.runId)) {
    throw new InvalidRunInputError([
      { field: 'runId', given: describeGiven(event.runId), expected: '1–80 letters, digits, "-" or "_"' },
    ]);
  }
  const parsed = parseOrThrow(runInputSchema, event.input);
  const segmentSeconds = deps.loadSegmentSeconds ?? awsSegmentSeconds(parsed.loadPlan);
  // The rules that need no AWS read, before any: the run API's start-run runs the same ones.
  const ruleIssues = optimizationInputIssues(parsed, {
    ...(deps.servingRegion === undefined ? {} : { servingRegion: deps.servingRegion }),
    loadSegmentSeconds: segmentSeconds,
  });
  if (ruleIssues.length > 0) throw new InvalidRunInputError(ruleIssues);
  // Neither a state over 256 KB nor a full history can be caught: refuse such a plan below.
  const limitSettings = {
    expandedByRanges: Object.keys(parsed.environmentRanges).length > 0,
    endpointDeadlineSeconds: ENDPOINT_DEADLINE_SECONDS,
    compilationDeadlineMarginSeconds: COMPILATION_DEADLINE_MARGIN_SECONDS,
    polling: deps.polling ?? { endpoint: DEFAULT_POLL_SCHEDULE, compilation: DEFAULT_POLL_SCHEDULE },
  };
  const candidateCount = parsed.existingEndpoint === undefined ? expandCandidates(parsed).length : 1;
  const loadPlan = defaultRoundsWithin(roundsWithinSegment(parsed.loadPlan, segmentSeconds), (tried) =>
    roundsFitLimits(
      {
        loadPlan: tried,
        loadSegmentSeconds: segmentSeconds,
        compilationMaxRuntimeSeconds: parsed.compilation.maxRuntimeSeconds,
        maxConcurrentCandidates: parsed.maxConcurrentCandidates,
        candidateCount,
        compilationCount: parsed.compilation.targets.length + parsed.compilation.optimizations.length,
      },
      limitSettings,
    ),
  );
  const input = {
    ...parsed,
    loadPlan: interleavingOf(loadPlan, parsed.existingEndpoint === undefined ? candidateCount : 1),
  };
  const prompts = plannedPromptSet(input);
  const payloads = await checkRunObjects(input, prompts, deps);
  // A prompt set's bodies come from the format's own template (prompt-templates.ts): only a run's
  // own payloads can disagree with the stream's format.
  const payloadWarnings = await checkStreamPayloads(input, deps.store);

  const instanceQuotas = await checkInstanceQuotas(input, deps);
  const inFlight = candidatesInFlightWithin(input, instanceQuotas, deps.servingRegion);
  const candidateTypes = input.candidates.flatMap((c) => ('instanceType' in c ? [c.instanceType] : []));
  const market = {
    region: deps.market?.region ?? deps.servingRegion,
    retry: deps.market?.retry,
    logger: deps.logger,
  };
  const prices = await readPriceBook({
    ...market,
    priceList: deps.market?.prices,
    cache: { store: deps.store, bucket: deps.artifactsBucket, readOnly: deps.market?.keepPrices === false },
    now: deps.now ?? (() => new Date()),
  });
  const facts = await readFactBook(candidateTypes, { ...market, reader: deps.market?.facts });
  const runPrefix = runPrefixKey(event.runId);
  const candidates =
    input.existingEndpoint === undefined
      ? expandCandidates(input).map((expanded, index) =>
          planCandidate(
            event.runId,
            input,
            expanded,
            interleavedHoldSeconds(input, candidateCount, index),
            prices,
          ),
        )
      : [planExistingEndpoint(input, input.existingEndpoint, prices)];
  const neoCompilations = input.compilation.targets.map((target) => ({
    target,
    jobName: resourceName(event.runId, 'compilation', target),
    outputUri: s3Uri(deps.artifactsBucket, `${runPrefix}compiled/${target}/`),
  }));
  // Optimization jobs are items of the same compile Map: the history, state size and worst-time
  // counts of a compilation (execution-limits.ts) cover them, as they run under the same
  // StoppingCondition and are polled by the same Wait → Check loop.
  const optimizations = input.compilation.optimizations.map(({ id, ...optimization }) => ({
    target: id,
    jobName: resourceName(event.runId, 'optimization', id),
    outputUri: s3Uri(deps.artifactsBucket, `${runPrefix}optimized/${id}/`),
    optimization,
  }));
  const compilations = [...neoCompilations, ...optimizations];
  const loadGeneratorUsd =
    measuringSeconds(input.loadPlan) *
    input.loadPlan.workers *
    (candidates.length || 1) *
    ESTIMATE_ASSUMPTIONS.loadGeneratorMemoryGb *
    LAMBDA_ARM64_USD_PER_GB_SECOND;
  const plannedRamp = rampTestPlanOf(input, segmentSeconds);
  const warnings = [
    ...payloadWarnings,
    workerCeilingWarning(input.loadPlan),
    inFlight.warning,
    deps.servingRegion === undefined ? undefined : shortRampWarning(plannedRamp),
    // Locally the project's compiler stands in for Neo: only AWS compilations rest on Neo's table.
    ...(deps.servingRegion === undefined ? [] : compilationSupportWarnings(input.compilation.targets)),
    ...prices.warnings,
    ...facts.warnings,
    ...unknownInstanceFactWarnings(candidateTypes, (type) => facts.specOf(type)),
  ].filter((warning) => warning !== undefined);

  const planWith = (prove: RunPlan['prove'], rampTest: RunPlan['rampTest']): RunPlan => {
    const proof = proofEstimate(input, candidates, prove);
    const ramp = rampEstimate(input, candidates, rampTest);
    const totalUsd = roundUsd(
      candidates.reduce((sum, c) => sum + c.estimatedCostUsd, 0) +
        loadGeneratorUsd +
        (proof?.usd ?? 0) +
        (ramp?.usd ?? 0),
    );
    return {
      runId: event.runId,
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.modelPackage === undefined ? {} : { modelPackage: input.modelPackage }),
      artifactsBucket: deps.artifactsBucket,
      runPrefixUri: s3Uri(deps.artifactsBucket, runPrefix),
      ...(input.model === undefined
        ? {}
        : { model: planModel(input.model, deps.artifactsBucket, runPrefix) }),
      payloads,
      ...(prompts === undefined ? {} : { prompts }),
      compilations,
      compilationMaxRuntimeSeconds: input.compilation.maxRuntimeSeconds,
      candidates,
      ...(input.existingEndpoint === undefined ? {} : { existingEndpoint: input.existingEndpoint }),
      loadPlan: input.loadPlan,
      loadSegmentSeconds: segmentSeconds,
      ...(warnings.length === 0 ? {} : { warnings }),
      sla: input.sla,
      objective: objectiveOf(input),
      // Read only with a target: a plan without one stays as small as before (it is in every state).
      ...(input.sla.targetTps === undefined
        ? {}
        : {
            availability: input.availability,
            scaling: input.scaling,
            ...(prove === undefined ? {} : { prove }),
            ...(rampTest === undefined ? {} : { rampTest }),
            ...(instanceQuotas.length === 0
              ? {}
              : { instanceQuotas: Object.fromEntries(instanceQuotas.map((q) => [q.instanceType, q.value])) }),
          }),
      cleanupPolicy: input.cleanup.policy,
      maxConcurrentCandidates: inFlight.maxConcurrentCandidates,
      tags: runTags(event.runId, input.tags),
      instanceFacts: facts.summary,
      estimate: {
        totalUsd,
        ...(input.maxCostUsd === undefined ? {} : { maxCostUsd: input.maxCostUsd }),
        priceTable: PRICE_TABLE_SOURCE,
        prices: prices.summary,
        assumptions: [
          `endpoint billed ${ESTIMATE_ASSUMPTIONS.provisioningSeconds / 60} min while creating and ${ESTIMATE_ASSUMPTIONS.teardownSeconds / 60} min while deleting`,
          `load test lasts ${measuringSeconds(input.loadPlan)} s per candidate at most (all steps and rounds run)`,
          ...(interleavesRepeats(input.loadPlan)
            ? [
                `repeats interleaved: real-time endpoints billed until every candidate has run its repeats, the first up to ${interleavedHoldSeconds(input, candidateCount, 0)} s more`,
              ]
            : []),
          `serverless candidates busy at full concurrency for the whole test (upper bound)`,
          'SageMaker Neo compilation jobs are not billed separately',
          ...(optimizations.length === 0
            ? []
            : [
                // "You are charged based on the instance used" (Create an inference optimization job,
                // https://docs.aws.amazon.com/sagemaker/latest/dg/model-optimize-create-job.html).
                `${optimizations.length} optimization job(s) not in the total: SageMaker bills each for the instance it chooses to run it on, up to compilation.maxRuntimeSeconds`,
              ]),
          ...(proof === undefined ? [] : [proof.assumption]),
          ...(ramp === undefined ? [] : [ramp.assumption]),
        ],
      },
    };
  };
  // The ramp's re-test and the proof's correction are never what makes a plan refused: each is
  // dropped (the re-test first: it is the longer) when the worst case with it passes a limit or
  // maxCostUsd, as default rounds are.
  const plannedProof = provePlanOf(input, segmentSeconds);
  const fits = (candidate: RunPlan): boolean =>
    (input.maxCostUsd === undefined || candidate.estimate.totalUsd <= input.maxCostUsd) &&
    optimizationLimitIssues(candidate, limitSettings).length === 0;
  let plan = planWith(plannedProof, plannedRamp);
  if (!fits(plan) && plannedRamp?.retests === 1) {
    plan = planWith(plannedProof, { ...plannedRamp, retests: 0 });
  }
  if (!fits(plan) && plannedProof?.corrections === 1) {
    plan = planWith({ ...plannedProof, corrections: 0 }, plan.rampTest);
  }
  const totalUsd = plan.estimate.totalUsd;

  const limitIssues = optimizationLimitIssues(plan, limitSettings);
  if (limitIssues.length > 0) throw new InvalidRunInputError(limitIssues);

  if (input.maxCostUsd !== undefined && totalUsd > input.maxCostUsd) {
    const breakdown = candidates.map((c) => `${c.id} $${c.estimatedCostUsd.toFixed(2)}`).join(', ');
    // The phases after "Recommend" are in the total: name them and how to drop them, or the
    // breakdown does not add up and the fix may not be the one that helps.
    const proof = proofEstimate(input, candidates, plan.prove);
    const ramp = rampEstimate(input, candidates, plan.rampTest);
    const phases = [
      ...(proof === undefined ? [] : [`; proof $${proof.usd.toFixed(2)}`]),
      ...(ramp === undefined ? [] : [`; ramp test $${ramp.usd.toFixed(2)}`]),
    ].join('');
    const phaseFixes = [
      ...(proof === undefined ? [] : [', or turn the proof off (prove.enabled: false)']),
      ...(ramp === undefined
        ? []
        : [', or shorten rampTest.seconds or turn the ramp test off (rampTest.enabled: false)']),
    ].join('');
    throw new BudgetExceededError(
      `The run's estimated cost $${totalUsd.toFixed(2)} exceeds maxCostUsd $${input.maxCostUsd.toFixed(2)} ` +
        `(${breakdown}; load generator $${loadGeneratorUsd.toFixed(2)}${phases}). Raise maxCostUsd, or shorten the load plan ` +
        `or remove candidates${phaseFixes}. Nothing was created.`,
      { estimatedCostUsd: totalUsd, maxCostUsd: input.maxCostUsd },
    );
  }
  // The warnings travel in the plan (the local --plan prints them); here they reach the logs once.
  deps.logger.info('Run planned', {
    runId: event.runId,
    candidates: candidates.length,
    compilations: compilations.length,
    estimatedCostUsd: totalUsd,
    ...(warnings.length === 0 ? {} : { warnings }),
  });
  const loadTestReruns = plannedLoadTestReruns(plan, limitSettings);
  // Measured on the plan as checked above: these small fields come after the check.
  return {
    ...plan,
    estimate: {
      ...plan.estimate,
      durationSeconds: {
        typical: typicalRunSeconds(input, plan),
        worst: optimizationWorstRunSeconds(plan, limitSettings),
      },
    },
    loadTestReruns,
    budgets: optimizationBudgets(plan, limitSettings, loadTestReruns),
  };
}

/**
 * The run's wall-clock time with the cost's assumptions: compilation jobs their whole runtime
 * (COMPILATION_CONCURRENCY at a time), then each wave of `maxConcurrentCandidates` created, load
 * tested (every round) and deleted, the interleaved repeats and the proof after them. A user's
 * endpoint is neither created nor deleted.
 */
function typicalRunSeconds(input: RunInput, plan: RunPlan): number {
  const { provisioningSeconds, teardownSeconds } = ESTIMATE_ASSUMPTIONS;
  const count = plan.candidates.length;
  const compilation =
    Math.ceil(plan.compilations.length / COMPILATION_CONCURRENCY) * plan.compilationMaxRuntimeSeconds;
  const life =
    (plan.existingEndpoint === undefined ? provisioningSeconds + teardownSeconds : 0) +
    measuringSeconds(plan.loadPlan);
  const waves = Math.ceil(count / Math.max(1, plan.maxConcurrentCandidates));
  // The first wave's endpoints stay up until every wave has run its repeats (`interleavedHoldSeconds`).
  const candidates = interleavesRepeats(plan.loadPlan)
    ? life + interleavedHoldSeconds(input, count, 0)
    : waves * life;
  const { prove } = plan;
  const proof =
    prove?.enabled === true && prove.skipReason === undefined
      ? (1 + (prove.corrections ?? 0)) *
        (provisioningSeconds + stepPeriodMs(plan.loadPlan) / 1000 + teardownSeconds)
      : 0;
  const ramp =
    plan.rampTest?.enabled === true
      ? (1 + (plan.rampTest.retests ?? 0)) *
        (provisioningSeconds + plan.loadPlan.warmupSeconds + plan.rampTest.seconds + teardownSeconds)
      : 0;
  return Math.round(compilation + candidates + proof + ramp);
}

/**
 * The plan's `prove` (with a target only): on unless the input turns it off, its workers sized for
 * the target rate as the planner sizes any open-model step (worker-ceiling.ts), and why it cannot
 * run when its one step does not fit one worker invocation.
 */
function provePlanOf(input: RunInput, segmentSeconds: number): RunPlan['prove'] {
  const targetTps = input.sla.targetTps;
  if (targetTps === undefined) return undefined;
  const skipReason = input.prove.enabled ? proofSkipReason(input.loadPlan, segmentSeconds) : undefined;
  return {
    enabled: input.prove.enabled,
    workers: proofWorkers(input.loadPlan, targetTps),
    ...(input.prove.enabled && skipReason === undefined ? { corrections: 1 } : {}),
    ...(skipReason === undefined ? {} : { skipReason }),
  };
}

/**
 * The plan's `rampTest` (with a target, and only when asked for: it is off by default), its
 * workers sized for the peak it ramps to, as the proof's are for the target.
 */
function rampTestPlanOf(input: RunInput, segmentSeconds: number): RunPlan['rampTest'] {
  const targetTps = input.sla.targetTps;
  if (targetTps === undefined || !input.rampTest.enabled) return undefined;
  return {
    enabled: true,
    seconds: rampSecondsOf(input, segmentSeconds),
    workers: rampWorkers(input.loadPlan, input.scaling.peakTps ?? targetTps),
    retests: 1,
  };
}

/**
 * The ramp runs in one load worker invocation: between two invocations no load is offered (the
 * workers drain, the aggregate runs, the next start is set), which would pause the rising rate the
 * policy follows (its alarm counts consecutive minutes) and shift the activities' clock times
 * against the timeline's, which counts load-test time only. So the warm-up and ramp must fit one
 * invocation; absent, `seconds` is the longest that does, at most DEFAULT_RAMP_SECONDS.
 */
function rampSecondsOf(input: RunInput, segmentSeconds: number): number {
  const asked = input.rampTest.seconds;
  // A longer one is refused before planning (planning/input-rules.ts).
  return asked ?? Math.min(DEFAULT_RAMP_SECONDS, rampSecondsThatFit(input.loadPlan, segmentSeconds));
}

/**
 * On AWS, target tracking scales out after its alarm has seen three one-minute periods above the
 * target, and the new instance then starts and loads the model: a shorter ramp most likely ends
 * before any scale-out, and measures the minimum alone. Said, not refused (a user may want that).
 */
function shortRampWarning(rampTest: RunPlan['rampTest']): string | undefined {
  if (rampTest === undefined || rampTest.seconds >= RAMP_SECONDS_TO_SCALE_ON_AWS) return undefined;
  return (
    `rampTest.seconds is ${rampTest.seconds}: on SageMaker a scale-out needs its metric above the target for 3 minutes, ` +
    `then an instance's start and model load, so a ramp under ${RAMP_SECONDS_TO_SCALE_ON_AWS} s most likely ends before any scale-out`
  );
}

/**
 * What the ramp may cost: it starts at the availability minimum and the policy adds instances as
 * the rate rises, up to a maximum known only once the candidates are measured. The estimate prices
 * the minimum of the dearest real-time candidate for the endpoint's life (creation, warm-up, ramp,
 * deletion), and says what each instance the policy adds may cost at most.
 */
function rampEstimate(
  input: RunInput,
  candidates: readonly PlannedCandidate[],
  rampTest: RunPlan['rampTest'],
): { readonly usd: number; readonly assumption: string } | undefined {
  if (rampTest === undefined) return undefined;
  const usdPerHour = Math.max(0, ...candidates.map((c) => (c.kind === 'realtime' ? (c.usdPerHour ?? 0) : 0)));
  if (usdPerHour === 0) return undefined;
  const seconds =
    ESTIMATE_ASSUMPTIONS.provisioningSeconds +
    input.loadPlan.warmupSeconds +
    rampTest.seconds +
    ESTIMATE_ASSUMPTIONS.teardownSeconds;
  const perInstance = (seconds / 3600) * usdPerHour;
  const instances = input.availability.minInstances;
  const attempts = 1 + (rampTest.retests ?? 0);
  return {
    usd: perInstance * instances * attempts,
    assumption:
      `the ramp test priced at ${instances} instance(s) of the dearest candidate for ${seconds} s` +
      `${attempts > 1 ? ', and its re-test alike' : ''}; each instance its policy adds bills at most ` +
      `$${perInstance.toFixed(4)} more (the maximum is known after the measurements)`,
  };
}

/**
 * What the proof may cost: its count is known only once the candidates are measured, so the
 * estimate prices the availability minimum of the most expensive real-time candidate for an
 * endpoint's life (creation, one step, deletion), and says what each further instance adds.
 */
function proofEstimate(
  input: RunInput,
  candidates: readonly PlannedCandidate[],
  prove: RunPlan['prove'],
): { readonly usd: number; readonly assumption: string } | undefined {
  if (prove === undefined || !prove.enabled || prove.skipReason !== undefined) return undefined;
  const usdPerHour = Math.max(0, ...candidates.map((c) => (c.kind === 'realtime' ? (c.usdPerHour ?? 0) : 0)));
  if (usdPerHour === 0) return undefined;
  const seconds =
    ESTIMATE_ASSUMPTIONS.provisioningSeconds +
    stepPeriodMs(input.loadPlan) / 1000 +
    ESTIMATE_ASSUMPTIONS.teardownSeconds;
  const perInstance = (seconds / 3600) * usdPerHour;
  const instances = input.availability.minInstances;
  const attempts = 1 + (prove.corrections ?? 0);
  // The correction tries at least one instance more than the first proof.
  const usd = perInstance * (instances * attempts + (attempts - 1));
  return {
    usd,
    assumption:
      `the proof at ${input.sla.targetTps ?? 0} TPS priced at ${instances} instance(s) of the dearest candidate for ` +
      `${seconds} s${attempts > 1 ? `, and its correction at ${instances + 1}` : ''}; its count is known after the ` +
      `measurements, each further instance adds $${perInstance.toFixed(4)}`,
  };
}

/**
 * A round (knee probe or repeat, load-test/rounds.ts) is one step run by one worker invocation:
 * with steps longer than an invocation's segment, a plan that asks for rounds is refused
 * (planning/input-rules.ts), and one that names none gets none (written into the plan:
 * `kneeProbes` 0, `repeats` 1).
 */
function roundsWithinSegment(loadPlan: LoadPlan, segmentSeconds: number): LoadPlan {
  const stepSeconds = stepPeriodMs(loadPlan) / 1000;
  if (stepSeconds <= segmentSeconds) return loadPlan;
  return { ...loadPlan, kneeProbes: 0, repeats: 1 };
}

/**
 * The default rounds a plan gets are those its worst case has room for, as with load test re-runs:
 * rounds never make a plan that fits without them be refused. A plan that names `kneeProbes` or
 * `repeats` keeps them (and is refused when they do not fit); of the defaults, repeats go first,
 * then knee probes (written into the plan as 1 and 0).
 */
function defaultRoundsWithin(loadPlan: LoadPlan, fits: (loadPlan: LoadPlan) => boolean): LoadPlan {
  const noRepeats = loadPlan.repeats === undefined ? { ...loadPlan, repeats: 1 } : loadPlan;
  const noProbes = loadPlan.kneeProbes === undefined ? { ...noRepeats, kneeProbes: 0 } : noRepeats;
  const fewer: LoadPlan[] = [loadPlan, noRepeats, noProbes];
  // None fits: the fewest, so that the refusal names what is wrong without the defaults.
  return fewer.find(fits) ?? fewer[fewer.length - 1] ?? loadPlan;
}

function roundUsd(value: number): number {
  return Math.round(value * 100) / 100;
}

/**
 * The objects the run reads (the shared checks of `object-checks.ts`, as the async workflow's
 * first state runs them): plain keys, each object readable, an artifact named `.tar.gz` a gzip
 * archive (it goes to SageMaker as it is), each payload within SageMaker's body limit and all of
 * them within a load worker's memory, a prompt set within a worker's bounds and every line of it a
 * prompt. Every problem at once. Returns the planned payloads: the run's, each with its size, or
 * one per bucket of the prompt set that holds prompts.
 */
async function checkRunObjects(
  input: RunInput,
  prompts: PlannedPromptSet | undefined,
  deps: ValidateAndPlanDeps,
): Promise<PlannedPayload[]> {
  const hasServerless = input.candidates.some((c) => 'serverless' in c);
  const bodyLimit = {
    bytes: hasServerless ? MAX_SERVERLESS_PAYLOAD_BYTES : MAX_REALTIME_PAYLOAD_BYTES,
    limit: `SageMaker's ${hasServerless ? 'serverless' : 'real-time'} payload limit`,
  };
  const model = input.model;
  const payloads = runPayloads(input);
  const payloadReferences: ObjectReference[] = payloads.map((payload, index) => ({
    field: payloadField(input, index),
    uri: payload.uri,
    maxBytes: bodyLimit,
  }));
  const promptReference: ObjectReference | undefined =
    prompts === undefined
      ? undefined
      : {
          field: 'prompts.uri',
          uri: prompts.uri,
          maxBytes: {
            bytes: PROMPT_SET_LIMITS.maxBytes,
            limit: 'what each load worker holds of a prompt set: a sample of the prompts',
          },
        };
  const references: ObjectReference[] = [
    // A Hugging Face Hub model has no artifact: its container downloads it.
    ...(model?.artifactUri === undefined
      ? []
      : [
          {
            field: 'model.artifactUri',
            uri: model.artifactUri,
            // An artifact that is not a .tar.gz is packaged by the run; one that is goes to SageMaker as it is.
            ...(model.artifactUri.endsWith('.tar.gz') ? { shape: 'model-archive' as const } : {}),
          },
        ]),
    ...(model?.inferenceCodeUri === undefined
      ? []
      : [{ field: 'model.inferenceCodeUri', uri: model.inferenceCodeUri }]),
    ...payloadReferences,
    ...(promptReference === undefined ? [] : [promptReference]),
  ];
  const uriIssues = references.flatMap((reference): InputIssue[] =>
    reference.uri.startsWith('file://') && !deps.allowFileUris
      ? [
          {
            field: reference.field,
            given: describeGiven(reference.uri),
            expected: 'an s3:// URI (file:// works in local mode only)',
          },
        ]
      : unreadableOrMalformed(reference, deps.artifactsBucket),
  );
  const refused = new Set(uriIssues.map((issue) => issue.field));
  const readable = references.filter((reference) => !refused.has(reference.field));
  const checked = await checkObjects(readable, deps.store);
  const sizes = payloadReferences.map((reference) => {
    const index = readable.indexOf(reference);
    return index < 0 ? 0 : (checked.metadata[index]?.sizeBytes ?? 0);
  });
  const promptsReadable =
    promptReference !== undefined &&
    readable.includes(promptReference) &&
    !checked.issues.some((issue) => issue.field === promptReference.field);
  const promptPlan =
    prompts !== undefined && promptsReadable
      ? await planPromptSet(prompts, deps.store, bodyLimit)
      : undefined;
  const issues = [...uriIssues, ...checked.issues, ...payloadSetIssues(sizes), ...(promptPlan?.issues ?? [])];
  if (issues.length > 0) throw new InvalidRunInputError(capIssues(issues));
  return (
    promptPlan?.payloads ?? payloads.map((payload, index) => ({ ...payload, sizeBytes: sizes[index] ?? 0 }))
  );
}

/** A URI outside the prefixes the run's roles read, else a key that is not a plain name. */
function unreadableOrMalformed(reference: ObjectReference, artifactsBucket: string): InputIssue[] {
  const outside = artifactPrefixIssues([reference], artifactsBucket, RUN_INPUT_PREFIXES.optimization);
  return outside.length > 0 ? outside : objectUriIssues([reference]);
}

/** The run input's `prompts` as the plan carries them, the template resolved. */
function plannedPromptSet(input: RunInput): PlannedPromptSet | undefined {
  const prompts = input.prompts;
  if (prompts === undefined) return undefined;
  const format = promptFormatOf(prompts.format, input.loadPlan.response);
  // The run input refuses prompts without a format it can resolve (promptFormatIssues).
  if (format === undefined) {
    throw new InvalidRunInputError([
      { field: 'prompts.format', given: 'undefined', expected: 'one of tgi, lmi, openai' },
    ]);
  }
  return {
    uri: prompts.uri,
    format,
    stream: input.loadPlan.response?.mode === 'stream',
    generation: prompts.generation,
    buckets: prompts.buckets,
  };
}

/**
 * Reads the prompt set and builds it as a load worker will (the same function): its problems, each
 * line's at its number, or one payload per bucket that holds prompts, weighted by its prompts so
 * that every prompt is as likely as any other.
 */
async function planPromptSet(
  prompts: PlannedPromptSet,
  store: ObjectStore,
  maxBodyBytes: { readonly bytes: number; readonly limit: string },
): Promise<{ readonly issues: readonly InputIssue[]; readonly payloads: PlannedPayload[] }> {
  const prepared = preparePromptSet(await store.getBytes(prompts.uri), prompts, {
    field: 'prompts.uri',
    maxBodyBytes,
  });
  return {
    issues: prepared.issues,
    payloads: prepared.buckets
      .filter((bucket) => bucket.requests.length > 0)
      .map((bucket) => ({
        uri: prompts.uri,
        contentType: 'application/json',
        weight: bucket.requests.length,
        sizeBytes: bucket.bytes,
        bucket: {
          name: bucket.name,
          ...(bucket.maxChars === undefined ? {} : { maxChars: bucket.maxChars }),
        },
      })),
  };
}

/**
 * A streaming plan's payloads against its format (shared/stream-payload-shape.ts): a body the
 * stream cannot come from is refused, one that loses a figure is a warning. Read after the object
 * checks, so each payload exists and is within SageMaker's body limit.
 */
async function checkStreamPayloads(input: RunInput, store: ObjectStore): Promise<string[]> {
  const response = input.loadPlan.response;
  if (response?.mode !== 'stream' || response.format === undefined) return [];
  const format = response.format;
  const findings = await Promise.all(
    runPayloads(input).map(async (payload, index) =>
      streamPayloadShape(format, payloadField(input, index), await store.getBytes(payload.uri)),
    ),
  );
  const issues = findings.flatMap((finding) => (finding.issue === undefined ? [] : [finding.issue]));
  if (issues.length > 0) throw new InvalidRunInputError(capIssues(issues));
  return findings.flatMap((finding) => (finding.warning === undefined ? [] : [finding.warning]));
}

/** A mix whose payloads together pass what a load worker can hold, with the largest named. */
function payloadSetIssues(sizes: readonly number[]): InputIssue[] {
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= MAX_PAYLOAD_SET_BYTES) return [];
  const largest = sizes.reduce((best, size, index) => (size > (sizes[best] ?? 0) ? index : best), 0);
  return [
    {
      field: 'payloads',
      given: `${sizes.length} payloads of ${total} bytes in all (the largest, payloads[${largest}], ${sizes[largest] ?? 0} bytes)`,
      expected: `at most ${MAX_PAYLOAD_SET_BYTES} bytes in all (each load worker holds every payload in memory): fewer or smaller payloads`,
    },
  ];
}

function planModel(
  model: NonNullable<RunInput['model']>,
  bucket: string,
  runPrefix: string,
): NonNullable<RunPlan['model']> {
  const packagedUri = s3Uri(bucket, `${runPrefix}model/model.tar.gz`);
  if (model.artifactUri === undefined) {
    // A Hub model: no model data, unless inference code is given, which is packaged alone (`code/`).
    return model.inferenceCodeUri === undefined
      ? { ...model, needsPackaging: false }
      : { ...model, packagedUri, needsPackaging: true };
  }
  // An artifact that is already a model.tar.gz, with no code to add, is used as it is.
  const alreadyPackaged = /\.tar\.gz$/.test(model.artifactUri) && model.inferenceCodeUri === undefined;
  return {
    ...model,
    packagedUri: alreadyPackaged ? model.artifactUri : packagedUri,
    needsPackaging: !alreadyPackaged,
  };
}

interface ExpandedCandidate {
  readonly id: string;
  readonly candidate: CandidateInput;
  readonly rangeEnvironment: Record<string, string>;
}

/** Each candidate × each combination of environment-range values, with stable unique ids. */
export function expandCandidates(input: RunInput): ExpandedCandidate[] {
  const combinations = Object.entries(input.environmentRanges).reduce<Record<string, string>[]>(
    (acc, [name, values]) => acc.flatMap((combo) => values.map((value) => ({ ...combo, [name]: value }))),
    [{}],
  );
  return input.candidates.flatMap((candidate, index) => {
    const baseId = candidate.id ?? defaultCandidateId(candidate, index);
    return combinations.map((rangeEnvironment, comboIndex) => ({
      id: combinations.length > 1 ? `${baseId}-e${comboIndex + 1}` : baseId,
      candidate,
      rangeEnvironment,
    }));
  });
}

function defaultCandidateId(candidate: CandidateInput, index: number): string {
  if ('serverless' in candidate) return `c${index + 1}-serverless-${candidate.serverless.memorySizeMb}`;
  const shortType = candidate.instanceType.replace(/^ml\./, '').replace(/\./g, '-');
  const suffix =
    candidate.compiledFor !== undefined ? '-neo' : candidate.optimizedBy !== undefined ? '-opt' : '';
  return `c${index + 1}-${shortType}${suffix}`;
}

/** The user's endpoint: already paid for, so the run adds no endpoint cost. */
function planExistingEndpoint(
  input: RunInput,
  existing: NonNullable<RunInput['existingEndpoint']>,
  prices: PriceBook,
): PlannedCandidate {
  const { instanceType } = existing;
  const given = instanceType === undefined ? undefined : input.pricing.usdPerHour[instanceType];
  const listed = instanceType === undefined || given !== undefined ? undefined : prices.priceOf(instanceType);
  const usdPerHour = given ?? listed?.usdPerHour;
  return {
    id: 'existing',
    kind: 'existing',
    ...(instanceType === undefined ? {} : { instanceType }),
    initialInstanceCount: existing.instanceCount ?? 1,
    environment: {},
    modelName: '',
    endpointConfigName: '',
    endpointName: existing.endpointName,
    ...(usdPerHour === undefined ? {} : { usdPerHour }),
    priceSource: given !== undefined ? 'run-input' : (listed?.source ?? 'unknown'),
    estimatedCostUsd: 0,
  };
}

/**
 * `interleaveRepeats` as the run will use it: kept (with `repeats` written out, which "Repeat
 * round due?" counts against) only when there are repeats to interleave and more than one
 * candidate to interleave them with; removed otherwise, so the plan says what runs.
 */
function interleavingOf(loadPlan: LoadPlan, candidateCount: number): LoadPlan {
  const { interleaveRepeats: _asked, ...rest } = loadPlan;
  if (!interleavesRepeats(loadPlan) || candidateCount < 2) return rest;
  return { ...rest, interleaveRepeats: true, repeats: repeatsOf(loadPlan) };
}

/**
 * With interleaved repeats, how much longer the candidate at `index` may be billed than its own
 * load test: kept up after it while the later waves of candidates (`maxConcurrentCandidates` at a
 * time, in order) are deployed, measured and deleted, then through the repeat rounds, each a step
 * and a check per wave. An upper bound: every later wave takes a whole candidate's life.
 */
function interleavedHoldSeconds(input: RunInput, candidateCount: number, index: number): number {
  const rounds = interleavedRepeatRounds(input.loadPlan);
  if (rounds === 0) return 0;
  const perWave = Math.max(1, input.maxConcurrentCandidates);
  const waves = Math.ceil(candidateCount / perWave);
  const laterWaves = waves - 1 - Math.floor(index / perWave);
  const life =
    ESTIMATE_ASSUMPTIONS.provisioningSeconds +
    measuringSeconds(input.loadPlan) +
    ESTIMATE_ASSUMPTIONS.teardownSeconds;
  return laterWaves * life + waves * rounds * (stepPeriodMs(input.loadPlan) / 1000 + REPEAT_OVERHEAD_SECONDS);
}

/** A repeat's time besides its step: "Check endpoint before repeat", the workers' start delay, "Aggregate repeat". */
const REPEAT_OVERHEAD_SECONDS = 20;

function planCandidate(
  runId: string,
  input: RunInput,
  expanded: ExpandedCandidate,
  holdSeconds: number,
  prices: PriceBook,
): PlannedCandidate {
  const { candidate, id } = expanded;
  const environment = { ...input.model?.environment, ...candidate.environment, ...expanded.rangeEnvironment };
  const names = {
    modelName: resourceName(runId, 'model', id),
    endpointConfigName: resourceName(runId, 'endpoint-config', id),
    endpointName: resourceName(runId, 'endpoint', id),
  };
  // Serverless endpoints are billed per request, so only real-time ones cost while kept.
  const billedSeconds =
    ESTIMATE_ASSUMPTIONS.provisioningSeconds +
    measuringSeconds(input.loadPlan) +
    ESTIMATE_ASSUMPTIONS.teardownSeconds +
    holdSeconds;
  if ('serverless' in candidate) {
    const gb = candidate.serverless.memorySizeMb / 1024;
    const usd =
      measuringSeconds(input.loadPlan) *
      candidate.serverless.maxConcurrency *
      gb *
      SERVERLESS_USD_PER_GB_SECOND;
    return {
      id,
      kind: 'serverless',
      initialInstanceCount: 0,
      serverless: candidate.serverless,
      environment,
      ...names,
      priceSource: 'serverless-per-second',
      estimatedCostUsd: roundUsd(usd),
    };
  }
  const override = input.pricing.usdPerHour[candidate.instanceType];
  // The schema guarantees a price: the instance is in the table or priced in the run input.
  const listed = override === undefined ? prices.priceOf(candidate.instanceType) : undefined;
  const usdPerHour = override ?? listed?.usdPerHour ?? Number.NaN;
  return {
    id,
    kind: 'realtime',
    instanceType: candidate.instanceType,
    initialInstanceCount: candidate.initialInstanceCount,
    ...(candidate.compiledFor === undefined ? {} : { compiledFor: candidate.compiledFor }),
    ...(candidate.optimizedBy === undefined ? {} : { optimizedBy: candidate.optimizedBy }),
    ...(candidate.routingStrategy === undefined ? {} : { routingStrategy: candidate.routingStrategy }),
    environment,
    ...names,
    usdPerHour,
    priceSource: listed?.source ?? 'run-input',
    estimatedCostUsd: roundUsd((billedSeconds / 3600) * usdPerHour * candidate.initialInstanceCount),
  };
}

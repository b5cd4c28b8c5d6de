import { DEFAULT_POLL_SCHEDULE, type PollSchedule } from '../../contracts/index.js';
import type { RunPlan, ValidateAndPlanEvent, RunInput } from '../../contracts/index.js';
import { awsSegmentSeconds } from '../../load-test/index.js';
import {
  expandCandidates,
  planCandidates,
  plannedQuality,
  parseRunInput,
  loadGeneratorUsd,
  candidatesInFlightWithin,
  checkInstanceQuotas,
  loadPlanThatFits,
  checkCandidatePrices,
  checkCost,
  checkExecutionLimits,
  checkInputRules,
  checkModelFit,
  checkRunId,
  checkShortlist,
  planWarnings,
  checkRunObjects,
  checkStreamPayloads,
  plannedPromptSet,
  planCompilations,
  type PlanParts,
  planWithinLimits,
  withFiguresOfCheckedPlan,
  provePlanOf,
  rampTestPlanOf,
  type MarketReaders,
  readMarket,
} from '../../planning/index.js';
import type { OptimizationLimitSettings } from '../../planning/index.js';
import type { InstanceQuotaReader, Logger, ObjectStore } from '../../ports/index.js';
import {
  COMPILATION_DEADLINE_MARGIN_SECONDS,
  ENDPOINT_DEADLINE_SECONDS,
  ESTIMATE_ASSUMPTIONS,
} from '../../deployment/index.js';

/** Shared with the async planner (core/shared/estimate-assumptions.ts), which is no step module. */
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
  /** The account's instance quotas (planning/instance-quotas.ts). @default not checked */
  readonly instanceQuotas?: InstanceQuotaReader;
  /**
   * Whether the objects the input names are read (existence, size, archive signature, stream
   * payloads, prompt set). False only for a plan made offline (npm run plan:aws), which says so.
   * @default true
   */
  readonly readObjects?: boolean;
  /** The live market of `servingRegion` (planning/market-reads.ts). @default the recorded tables */
  readonly market?: MarketReaders;
  /** @default the system clock: the day of a price read, the age of the recorded prices */
  readonly now?: () => Date;
  readonly logger: Logger;
}

/** What the history, state-size and run-time limits are checked with, beside the plan. */
function limitSettingsOf(
  input: RunInput,
  polling: ValidateAndPlanDeps['polling'],
): OptimizationLimitSettings {
  return {
    expandedByRanges: Object.keys(input.environmentRanges).length > 0,
    endpointDeadlineSeconds: ENDPOINT_DEADLINE_SECONDS,
    compilationDeadlineMarginSeconds: COMPILATION_DEADLINE_MARGIN_SECONDS,
    polling: polling ?? { endpoint: DEFAULT_POLL_SCHEDULE, compilation: DEFAULT_POLL_SCHEDULE },
  };
}

/**
 * State "Validate and plan": refuses bad input and over-budget runs before anything is created.
 * The checks run from the cheapest to those that read: the run id and the input's rules, the
 * objects the run reads, the instance quotas; then the plan is built within the limits and
 * checked against them and against maxCostUsd.
 */
export async function validateAndPlan(
  event: ValidateAndPlanEvent,
  deps: ValidateAndPlanDeps,
): Promise<RunPlan> {
  checkRunId(event.runId);
  const shortlisted = checkShortlist(parseRunInput(event.input), deps.servingRegion);
  const parsed = shortlisted.input;
  const segmentSeconds = deps.loadSegmentSeconds ?? awsSegmentSeconds(parsed.loadPlan);
  checkInputRules(parsed, deps.servingRegion, segmentSeconds);
  // Neither a state over 256 KB nor a full history can be caught: the plan is refused below.
  const limitSettings = limitSettingsOf(parsed, deps.polling);
  const candidateCount = parsed.existingEndpoint === undefined ? expandCandidates(parsed).length : 1;
  const input = {
    ...parsed,
    loadPlan: loadPlanThatFits(parsed, segmentSeconds, candidateCount, limitSettings),
  };
  const prompts = plannedPromptSet(input);
  const { payloads, artifactBytes } = await checkRunObjects(input, prompts, deps);
  const fitWarnings = checkModelFit(input, artifactBytes);
  // A prompt set's bodies come from the format's own template (prompt-templates.ts): only a run's
  // own payloads can disagree with the stream's format.
  const payloadWarnings = deps.readObjects === false ? [] : await checkStreamPayloads(input, deps.store);
  const instanceQuotas = await checkInstanceQuotas(input, deps);
  const inFlight = candidatesInFlightWithin(input, instanceQuotas, deps.servingRegion);
  const market = await readMarket(input, deps);
  checkCandidatePrices(input, market.prices);
  const candidates = planCandidates(event.runId, input, candidateCount, market.prices);
  const quality = plannedQuality(input, candidates);
  const compilations = planCompilations(event.runId, input, deps.artifactsBucket);
  const plannedRamp = rampTestPlanOf(input, segmentSeconds);
  const parts: PlanParts = {
    runId: event.runId,
    input,
    artifactsBucket: deps.artifactsBucket,
    segmentSeconds,
    candidateCount,
    payloads,
    prompts,
    candidates,
    ...(quality === undefined ? {} : { quality }),
    ...(shortlisted.shortlist === undefined ? {} : { shortlist: shortlisted.shortlist }),
    compilations,
    optimizationJobs: input.compilation.optimizations.length,
    warnings: planWarnings(
      input,
      deps.servingRegion,
      payloadWarnings,
      inFlight.warning,
      plannedRamp,
      fitWarnings,
      market,
    ),
    instanceQuotas,
    maxConcurrentCandidates: inFlight.maxConcurrentCandidates,
    loadGeneratorUsd: loadGeneratorUsd(input, candidates.length),
    prices: market.prices.summary,
    instanceFacts: market.facts.summary,
  };
  const plan = planWithinLimits(parts, limitSettings, provePlanOf(input, segmentSeconds), plannedRamp);
  checkExecutionLimits(plan, limitSettings);
  checkCost(parts, plan);
  // The warnings travel in the plan (the local --plan prints them); here they reach the logs once.
  deps.logger.info('Run planned', {
    runId: event.runId,
    candidates: candidates.length,
    compilations: compilations.length,
    estimatedCostUsd: plan.estimate.totalUsd,
    ...(parts.warnings.length === 0 ? {} : { warnings: parts.warnings }),
  });
  return withFiguresOfCheckedPlan(input, plan, limitSettings);
}

import {
  PRICE_TABLE_SOURCE,
  resourceName,
  runTags,
  runPrefixKey,
  s3Uri,
  objectiveOf,
  type RunInput,
} from '../contracts/index.js';
import type { PlannedCompilation, RunPlan, PlannedPromptSet } from '../contracts/index.js';
import { interleavesRepeats, measuringSeconds } from '../load-test/index.js';
import type { InstanceQuota } from '../ports/index.js';
import { ESTIMATE_ASSUMPTIONS } from '../deployment/index.js';
import { proofEstimate, rampEstimate, roundUsd, typicalRunSeconds } from './estimates.js';
import { interleavedHoldSeconds } from './load-plan-rounds.js';
import { planModel } from './model-plan.js';
import {
  optimizationLimitIssues,
  type OptimizationLimitSettings,
  optimizationWorstRunSeconds,
  optimizationBudgets,
  plannedLoadTestReruns,
} from './optimization-limits.js';

/** What a run's plan is made of, once its input, objects and quotas are checked. */
export interface PlanParts {
  readonly runId: string;
  readonly input: RunInput;
  readonly artifactsBucket: string;
  readonly segmentSeconds: number;
  /** Candidates before any existing endpoint replaces them (for the interleaved repeats' hold). */
  readonly candidateCount: number;
  readonly payloads: RunPlan['payloads'];
  readonly prompts: PlannedPromptSet | undefined;
  readonly candidates: RunPlan['candidates'];
  /** The output-quality guard, its reference resolved (quality-plan.ts). */
  readonly quality?: RunPlan['quality'];
  /** The planner's choice of instance types, when the input asked for a shortlist. */
  readonly shortlist?: RunPlan['shortlist'];
  readonly compilations: RunPlan['compilations'];
  /** Of the compilations, the optimization jobs (billed apart from the total). */
  readonly optimizationJobs: number;
  readonly warnings: string[];
  readonly instanceQuotas: readonly InstanceQuota[];
  readonly maxConcurrentCandidates: number;
  readonly loadGeneratorUsd: number;
  /** Where the prices came from: the live price list or the recorded table, and how old. */
  readonly prices: RunPlan['estimate']['prices'];
  /** Where the instance facts came from: EC2 or the recorded table. */
  readonly instanceFacts: RunPlan['instanceFacts'];
}

/**
 * The compile Map's items: a Neo compilation job per target, then an optimization job per
 * optimization. Optimization jobs are items of the same Map: the history, state size and
 * worst-time counts of a compilation (history-model.ts, state-size.ts, run-time-estimate.ts)
 * cover them, as they run under the same StoppingCondition and are polled by the same
 * Wait → Check loop.
 */
export function planCompilations(
  runId: string,
  input: RunInput,
  artifactsBucket: string,
): PlannedCompilation[] {
  const runPrefix = runPrefixKey(runId);
  const neoCompilations = input.compilation.targets.map((target) => {
    const compilerOptions = input.compilation.compilerOptions?.[target];
    const quantization = input.compilation.quantization?.[target];
    return {
      target,
      jobName: resourceName(runId, 'compilation', target),
      outputUri: s3Uri(artifactsBucket, `${runPrefix}compiled/${target}/`),
      ...(compilerOptions === undefined ? {} : { compilerOptions }),
      ...(quantization === undefined ? {} : { quantization }),
    };
  });
  const optimizations = input.compilation.optimizations.map(({ id, ...optimization }) => ({
    target: id,
    jobName: resourceName(runId, 'optimization', id),
    outputUri: s3Uri(artifactsBucket, `${runPrefix}optimized/${id}/`),
    optimization,
  }));
  return [...neoCompilations, ...optimizations];
}

/** The plan with the given proof and ramp test, its estimate included. */
export function runPlanOf(parts: PlanParts, prove: RunPlan['prove'], rampTest: RunPlan['rampTest']): RunPlan {
  const { input, candidates, artifactsBucket } = parts;
  const runPrefix = runPrefixKey(parts.runId);
  const proof = proofEstimate(input, candidates, prove);
  const ramp = rampEstimate(input, candidates, rampTest);
  const totalUsd = roundUsd(
    candidates.reduce((sum, c) => sum + c.estimatedCostUsd, 0) +
      parts.loadGeneratorUsd +
      (proof?.usd ?? 0) +
      (ramp?.usd ?? 0),
  );
  return {
    runId: parts.runId,
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.modelPackage === undefined ? {} : { modelPackage: input.modelPackage }),
    artifactsBucket,
    runPrefixUri: s3Uri(artifactsBucket, runPrefix),
    ...(input.model === undefined ? {} : { model: planModel(input.model, artifactsBucket, runPrefix) }),
    payloads: parts.payloads,
    ...(parts.prompts === undefined ? {} : { prompts: parts.prompts }),
    compilations: parts.compilations,
    compilationMaxRuntimeSeconds: input.compilation.maxRuntimeSeconds,
    candidates,
    ...(parts.quality === undefined ? {} : { quality: parts.quality }),
    ...(parts.shortlist === undefined ? {} : { shortlist: parts.shortlist }),
    ...(input.existingEndpoint === undefined ? {} : { existingEndpoint: input.existingEndpoint }),
    loadPlan: input.loadPlan,
    loadSegmentSeconds: parts.segmentSeconds,
    ...(parts.warnings.length === 0 ? {} : { warnings: parts.warnings }),
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
          ...(parts.instanceQuotas.length === 0
            ? {}
            : {
                instanceQuotas: Object.fromEntries(
                  parts.instanceQuotas.map((q) => [q.instanceType, q.value]),
                ),
              }),
        }),
    cleanupPolicy: input.cleanup.policy,
    maxConcurrentCandidates: parts.maxConcurrentCandidates,
    tags: runTags(parts.runId, input.tags),
    instanceFacts: parts.instanceFacts,
    estimate: {
      totalUsd,
      ...(input.maxCostUsd === undefined ? {} : { maxCostUsd: input.maxCostUsd }),
      priceTable: PRICE_TABLE_SOURCE,
      prices: parts.prices,
      assumptions: [
        `endpoint billed ${ESTIMATE_ASSUMPTIONS.provisioningSeconds / 60} min while creating and ${ESTIMATE_ASSUMPTIONS.teardownSeconds / 60} min while deleting`,
        `load test lasts ${measuringSeconds(input.loadPlan)} s per candidate at most (all steps and rounds run)`,
        ...(interleavesRepeats(input.loadPlan)
          ? [
              `repeats interleaved: real-time endpoints billed until every candidate has run its repeats, the first up to ${interleavedHoldSeconds(input, parts.candidateCount, 0)} s more`,
            ]
          : []),
        `serverless candidates busy at full concurrency for the whole test (upper bound)`,
        'SageMaker Neo compilation jobs are not billed separately',
        ...(parts.optimizationJobs === 0
          ? []
          : [
              // "You are charged based on the instance used" (Create an inference optimization job,
              // https://docs.aws.amazon.com/sagemaker/latest/dg/model-optimize-create-job.html).
              `${parts.optimizationJobs} optimization job(s) not in the total: SageMaker bills each for the instance it chooses to run it on, up to compilation.maxRuntimeSeconds`,
            ]),
        ...(proof === undefined ? [] : [proof.assumption]),
        ...(ramp === undefined ? [] : [ramp.assumption]),
      ],
    },
  };
}

/**
 * The ramp's re-test and the proof's correction are never what makes a plan refused: each is
 * dropped (the re-test first: it is the longer) when the worst case with it passes a limit or
 * maxCostUsd, as default rounds are.
 */
export function planWithinLimits(
  parts: PlanParts,
  settings: OptimizationLimitSettings,
  plannedProof: RunPlan['prove'],
  plannedRamp: RunPlan['rampTest'],
): RunPlan {
  const { maxCostUsd } = parts.input;
  const fits = (candidate: RunPlan): boolean =>
    (maxCostUsd === undefined || candidate.estimate.totalUsd <= maxCostUsd) &&
    optimizationLimitIssues(candidate, settings).length === 0;
  let plan = runPlanOf(parts, plannedProof, plannedRamp);
  if (!fits(plan) && plannedRamp?.retests === 1) {
    plan = runPlanOf(parts, plannedProof, { ...plannedRamp, retests: 0 });
  }
  if (!fits(plan) && plannedProof?.corrections === 1) {
    plan = runPlanOf(parts, { ...plannedProof, corrections: 0 }, plan.rampTest);
  }
  return plan;
}

/**
 * The plan as returned, with what is measured on the plan as checked (its durations, its load test
 * re-runs and its budgets): these small fields come after the check.
 */
export function withFiguresOfCheckedPlan(
  input: RunInput,
  plan: RunPlan,
  settings: OptimizationLimitSettings,
): RunPlan {
  const loadTestReruns = plannedLoadTestReruns(plan, settings);
  return {
    ...plan,
    estimate: {
      ...plan.estimate,
      durationSeconds: {
        typical: typicalRunSeconds(input, plan),
        worst: optimizationWorstRunSeconds(plan, settings),
      },
    },
    loadTestReruns,
    budgets: optimizationBudgets(plan, settings, loadTestReruns),
  };
}

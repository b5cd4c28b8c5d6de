import type { InputIssue } from '../contracts/index.js';
import { jsonBytes, STEP_FUNCTIONS_QUOTAS } from '../contracts/index.js';

/**
 * Upper bounds of what later states add to a run's state beside the plan, per item. Each is a
 * bound of small JSON documents (core/contracts/optimization-state.ts) with the longest text they
 * can carry.
 */
export const STATE_ALLOWANCE_BYTES = {
  /** A CompilationState: names, URIs and SageMaker's FailureReason (at most 1,024 characters, DescribeCompilationJob). */
  compilation: 2_048,
  /** A CandidateOutcome, or a Catch's `{ Error, Cause }`: our error message plus Lambda's error document. */
  candidateOutcome: 3_072,
  /** The candidate's line in the run summary ("Recommend"): verdict and reason. */
  summaryLine: 1_024,
  /** A WorkerOutcome: worker index, result URI, why it stopped. */
  workerOutcome: 512,
  /** A DeploymentState with its worker indexes. */
  deployment: 1_024,
  /** The packaged model, the summary's report URIs and recommendation, the clean-up result. */
  fixed: 4_096,
  /**
   * A candidate's quality verdict in its outcome (QualityVerdictSummary): figures and ids, a reason
   * of 500 characters and two notes of 300 (core/contracts/quality.ts), at up to 3 UTF-8 bytes a
   * character. Its worst examples are in the object store, not the state.
   */
  qualityVerdict: 4_096,
  /** The ramp's RegisterScalableTarget and PutScalingPolicy requests (names of at most 63 characters). */
  scalingRequests: 1_024,
} as const;

/** The plan as "Validate and plan" returns it, seen for its size. */
export interface PlannedRunFootprint {
  readonly plan: unknown;
  readonly candidates: readonly { readonly environment: Readonly<Record<string, string>> }[];
  readonly compilationTargets: number;
  readonly workersPerCandidate: number;
  readonly tags: Readonly<Record<string, string>>;
  readonly modelEnvironment: Readonly<Record<string, string>>;
  /** The plan's payload list (one entry per payload of the mix). @default none */
  readonly payloads?: readonly unknown[];
  /** Candidates were expanded over `environmentRanges`: their environments come from there. */
  readonly expandedByRanges: boolean;
  /** Workers of "Prove the target" when it runs. @default no proof */
  readonly proofWorkers?: number;
  /** Workers of "Ramp test" when it runs. @default no ramp */
  readonly rampWorkers?: number;
  /** The output-quality guard: each outcome carries a verdict. @default no guard */
  readonly qualityGuarded?: boolean;
}

export interface LargestState {
  readonly bytes: number;
  readonly state: string;
}

/**
 * The largest state a run can reach: the plan travels in every state, so the largest is the plan
 * plus the most that is added beside it. Either the run's state once every candidate has an
 * outcome ("Benchmark each candidate" → "Recommend"), or one candidate's state after its load
 * workers (a copy of the plan, the candidate, the compilations, the deployment and the workers).
 */
export function largestOptimizationState(footprint: PlannedRunFootprint): LargestState {
  const A = STATE_ALLOWANCE_BYTES;
  const planBytes = jsonBytes(footprint.plan);
  const compilations = footprint.compilationTargets * A.compilation;
  const verdict = footprint.qualityGuarded === true ? A.qualityVerdict : 0;
  const runState =
    planBytes +
    A.fixed +
    compilations +
    footprint.candidates.length * (A.candidateOutcome + verdict + A.summaryLine);
  const largestCandidate = Math.max(0, ...footprint.candidates.map(jsonBytes));
  const candidateState =
    planBytes +
    largestCandidate +
    A.fixed +
    compilations +
    A.deployment +
    footprint.workersPerCandidate * A.workerOutcome +
    A.candidateOutcome;
  // "Prove the target" adds to the run state the proof's request (a candidate and the load plan,
  // in the summary), the candidate again, its deployment, its workers and its verdict or error.
  const proofState =
    footprint.proofWorkers === undefined
      ? 0
      : runState +
        2 * largestCandidate +
        jsonBytes((footprint.plan as { loadPlan?: unknown }).loadPlan ?? {}) +
        A.deployment +
        footprint.proofWorkers * A.workerOutcome +
        A.candidateOutcome;
  // "Ramp test" adds to the run state its request (a candidate, the load plan and the two scaling
  // requests, in the summary beside what the proof left there: its request and its verdict), the
  // candidate again, its deployment, its workers, the aggregate's outcome and its verdict or error.
  const loadPlanBytes = jsonBytes((footprint.plan as { loadPlan?: unknown }).loadPlan ?? {});
  const proofLeft =
    footprint.proofWorkers === undefined ? 0 : largestCandidate + loadPlanBytes + A.candidateOutcome;
  const rampState =
    footprint.rampWorkers === undefined
      ? 0
      : runState +
        proofLeft +
        2 * largestCandidate +
        loadPlanBytes +
        A.scalingRequests +
        A.deployment +
        footprint.rampWorkers * A.workerOutcome +
        2 * A.candidateOutcome +
        // A re-test's request, in the verdict beside the first.
        largestCandidate +
        loadPlanBytes +
        A.scalingRequests;
  if (rampState > runState && rampState >= candidateState && rampState >= proofState) {
    return { bytes: rampState, state: 'the run state after "Run ramp load workers"' };
  }
  if (proofState > runState && proofState >= candidateState) {
    return { bytes: proofState, state: 'the run state after "Run proof load workers"' };
  }
  return runState >= candidateState
    ? { bytes: runState, state: 'the run state after "Benchmark each candidate"' }
    : { bytes: candidateState, state: `a candidate's state after "Run load workers"` };
}

interface Contributor {
  readonly field: string;
  /** UTF-8 bytes of the field as written (JSON). */
  readonly bytes: number;
  /** Times the plan carries it: the model's environment is merged into every candidate's. */
  readonly copies: number;
}

/** The field whose share of the plan is largest: the one to shrink. */
function largestContributor(footprint: PlannedRunFootprint): Contributor {
  const modelEnvironment = jsonBytes(footprint.modelEnvironment);
  const candidateEnvironments = footprint.candidates.reduce((sum, c) => sum + jsonBytes(c.environment), 0);
  const copiesOfModelEnvironment = footprint.candidates.length + 1;
  const contributors: Contributor[] = [
    { field: 'tags', bytes: jsonBytes(footprint.tags), copies: 1 },
    { field: 'payloads', bytes: jsonBytes(footprint.payloads ?? []), copies: 1 },
    { field: 'model.environment', bytes: modelEnvironment, copies: copiesOfModelEnvironment },
    {
      field: footprint.expandedByRanges ? 'environmentRanges' : 'candidates',
      bytes: Math.max(0, candidateEnvironments - modelEnvironment * footprint.candidates.length),
      copies: 1,
    },
  ];
  return contributors.reduce((largest, c) =>
    c.bytes * c.copies > largest.bytes * largest.copies ? c : largest,
  );
}

/** The issue that refuses a plan whose largest state passes the payload quota, or undefined. */
export function stateSizeIssue(footprint: PlannedRunFootprint): InputIssue | undefined {
  const largest = largestOptimizationState(footprint);
  const limit = STEP_FUNCTIONS_QUOTAS.maxPayloadBytes;
  if (largest.bytes <= limit) return undefined;
  const culprit = largestContributor(footprint);
  const excess = largest.bytes - limit;
  const copied = culprit.copies > 1 ? `, copied into each of ${culprit.copies - 1} candidates` : '';
  const allowed = culprit.bytes - Math.ceil(excess / culprit.copies);
  const fix =
    allowed > 2
      ? `${culprit.field} of at most ${allowed} bytes (as JSON)${copied}`
      : `fewer candidates, or less in ${culprit.field}`;
  return {
    field: culprit.field,
    given: `${culprit.bytes} bytes (as JSON)${copied}: the largest state (${largest.state}) reaches ${largest.bytes} bytes`,
    expected: `${fix}, so that every state stays within ${limit} bytes (Step Functions' payload quota per state; States.DataLimitExceeded cannot be caught)`,
  };
}

import { awsSegmentSeconds, loadTestSeconds, stepPeriodMs } from '../load-test/plan.js';
import { interleavedRepeatRounds, worstCaseOwnRounds } from '../load-test/rounds.js';
import { CLEAN_UP_WAIT } from './clean-up-account.js';
import type { InputIssue } from './errors.js';
import {
  LOAD_WORKER_MEASURING_SECONDS,
  LOAD_WORKER_TIMEOUT_SECONDS,
  OPTIMIZATION_RUN_TIMEOUT_HOURS,
  OPTIMIZATION_RUN_TIMEOUT_SECONDS,
} from './run-timeouts.js';
import { STEP_FUNCTIONS_QUOTAS } from './step-functions-quotas.js';
import type { LoadPlan } from './load-plan.js';

export { STEP_FUNCTIONS_QUOTAS };

/**
 * The two Step Functions limits a run must fit, computed from its plan by the first state of each
 * workflow. Neither can be caught once a run meets it: `States.DataLimitExceeded` is a terminal
 * error that `States.ALL` does not match (Step Functions developer guide, "Handling errors in Step
 * Functions workflows": https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html),
 * and a full history fails the execution. So a plan that could meet either is refused before
 * anything is created, naming the field to shrink.
 */

/**
 * Events left out of the structural count for retries: each retried Lambda attempt adds three
 * (LambdaFunctionFailed, LambdaFunctionScheduled, LambdaFunctionStarted). 1,000 events leave room
 * for about 330 retried attempts in one run.
 */
export const HISTORY_RETRY_RESERVE = 1_000;
export const HISTORY_BUDGET = STEP_FUNCTIONS_QUOTAS.maxHistoryEvents - HISTORY_RETRY_RESERVE;

/**
 * History events per state, as Step Functions records them (API reference, "HistoryEvent", its
 * `type` values: https://docs.aws.amazon.com/step-functions/latest/apireference/API_HistoryEvent.html).
 * Our Task states name the function ARN as `Resource`, so they record the
 * LambdaFunction* events.
 */
export const HISTORY_EVENTS = {
  /** ExecutionStarted, ExecutionSucceeded. */
  execution: 2,
  /** TaskStateEntered, LambdaFunctionScheduled, LambdaFunctionStarted, LambdaFunctionSucceeded, TaskStateExited. */
  lambdaTask: 5,
  /** TaskStateEntered, TaskScheduled, TaskStarted, TaskSubmitted, TaskSucceeded (or TaskFailed), TaskStateExited. */
  waitForTokenTask: 6,
  /** Pass, Wait, Choice, Succeed: `<Type>StateEntered`, `<Type>StateExited`. */
  simpleState: 2,
  /** Map and Parallel: `<Type>StateEntered`, `<Type>StateStarted`, `<Type>StateSucceeded`, `<Type>StateExited`. */
  mapOrParallel: 4,
  /** MapIterationStarted, MapIterationSucceeded. */
  mapIteration: 2,
} as const;

const E = HISTORY_EVENTS;
/** A Wait → Check (Lambda) → Choice round of a polling loop. */
const POLL_ROUND = E.simpleState + E.lambdaTask + E.simpleState;

/** Where a polling loop starts and the ceiling its doubling stops at (see `nextPollSeconds`). */
export interface PollSchedule {
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
}

/**
 * The Lambdas' default schedule (30 s doubling to 2 minutes, lambdas/wiring.ts): the history model
 * and the Lambdas read the same numbers.
 */
export const DEFAULT_POLL_SCHEDULE: PollSchedule = { pollSeconds: 30, maxPollSeconds: 120 };

/**
 * Rounds of a Wait → Check loop that ends at `deadlineSeconds` at the latest: the check that first
 * sees the deadline passed ends the loop. Task durations are left out, so this is an upper bound.
 */
export function pollRoundsWithin(deadlineSeconds: number, schedule: PollSchedule): number {
  const backOff = { ...schedule, pollSeconds: Math.max(1, schedule.pollSeconds) };
  let waited = 0;
  let wait = nextPollSeconds(0, backOff);
  let rounds = 0;
  while (waited <= deadlineSeconds) {
    rounds += 1;
    waited += wait;
    wait = nextPollSeconds(wait, backOff);
  }
  return rounds;
}

/**
 * The wait before the next poll: polls back off (doubling up to a cap) so a slow job or endpoint
 * costs few history events, every Wait → Check → Choice round adding about nine. The first wait
 * (`previous` 0) is `pollSeconds`.
 */
export function nextPollSeconds(previous: number, schedule: PollSchedule): number {
  return Math.min(schedule.maxPollSeconds, Math.max(schedule.pollSeconds, previous * 2));
}

/** What the optimization workflow's history depends on. */
export interface OptimizationHistoryShape {
  readonly candidates: number;
  readonly workersPerCandidate: number;
  readonly compilationTargets: number;
  /** Wait → Check endpoint → Choice rounds of each candidate. */
  readonly endpointRounds: number;
  /** Wait → Check compilation → Choice rounds of each target. */
  readonly compilationRounds: number;
  /** Wait → "Clean up run resources" → Choice rounds after the first clean-up (busy endpoints). @default 0 */
  readonly cleanUpRounds?: number;
  /** Load tests of each candidate: 2 when a late worker made it re-run (LOAD_TEST_RUNS). @default 1 */
  readonly loadTestRuns?: number;
  /**
   * Segments of each load test: worker invocations one after the other, for a test longer than
   * one (handlers/load-test/engine.ts). A re-run replaces the first segment only (late workers
   * are looked for there), so it adds one segment. @default 1
   */
  readonly loadTestSegments?: number;
  /**
   * Rounds after each load test's schedule (knee probes and repeats, load-test/rounds.ts): each
   * runs the workers once more, like a segment, through "Run next load round". @default 0
   */
  readonly loadRounds?: number;
  /**
   * Interleaved repeat rounds ("Repeat each candidate", after every candidate's own test): each
   * checks every candidate's kept endpoint and runs its workers once more. @default 0
   */
  readonly interleavedRounds?: number;
  /** Retried "Deploy candidate" attempts of each candidate while its instance quota is reached. @default 0 */
  readonly deployRetries?: number;
  /** "Delete candidates not kept" after "Recommend" (the `keep-recommended` clean-up policy). @default false */
  readonly deletesCandidatesNotKept?: boolean;
  /**
   * "Prove the target" after "Recommend" (with a target and the proof on): its workers and its
   * endpoint's Wait → Check → Choice rounds. @default none
   */
  readonly proof?: {
    readonly workers: number;
    readonly endpointRounds: number;
    /** 2 when a proof that did not hold may run again with a corrected count. @default 1 */
    readonly attempts?: number;
  };
  /**
   * "Ramp test" after the proof (with a target and `rampTest.enabled`): its workers, its
   * endpoint's rounds and the segments its ramp runs in. @default none
   */
  readonly ramp?: {
    readonly workers: number;
    readonly endpointRounds: number;
    /** @default 1 */
    readonly segments?: number;
    /** 2 when a ramp that broke the SLA may run again at the advised headroom. @default 1 */
    readonly attempts?: number;
  };
}

/**
 * The "Deploy candidate" Retry on QuotaExceededError (workflows/lambda-step.ts): 1 minute doubling
 * to at most 15 minutes, 12 attempts. Its waits add up to 2 h 15 min (60 + 120 + 240 + 480 s, then
 * 8 × 900 s), about 67 minutes on average with full jitter: longer than a candidate's whole life,
 * so a candidate queues behind the others of its instance type rather than failing. Few, long
 * waits keep the history small: 3 events per attempt, out of HISTORY_RETRY_RESERVE (the reserve's
 * 1,000 events cover 27 candidates waiting out all 12 attempts); a candidate waiting costs
 * nothing, since nothing of it exists yet.
 */
export const QUOTA_RETRY = {
  intervalSeconds: 60,
  backoffRate: 2,
  maxDelaySeconds: 900,
  maxAttempts: 12,
} as const;

/**
 * The Retry of `TransientServiceError` (throttling after the SDK's own retries) on every Lambda
 * step, "Invoke async inference" included (workflows/lambda-step.ts): 5 s doubling, 5 attempts.
 */
export const TRANSIENT_RETRY = {
  intervalSeconds: 5,
  backoffRate: 2,
  maxAttempts: 5,
} as const;

/** A candidate's load test runs at most twice: once, and once more if a worker started late. */
export const LOAD_TEST_RUNS = 2;

/** LambdaFunctionFailed, LambdaFunctionScheduled, LambdaFunctionStarted: what one retried attempt adds. */
const RETRIED_ATTEMPT = 3;

/**
 * What one retried attempt of a `.waitForTaskToken` task adds: TaskScheduled, TaskStarted,
 * TaskSubmitted and TaskFailed, at most (API reference, "HistoryEvent" types). Counted at 4, an
 * upper bound: a Lambda that throws may fail the attempt before it is submitted.
 */
const RETRIED_TOKEN_ATTEMPT = 4;

export interface HistoryCount {
  readonly total: number;
  readonly fixed: number;
  readonly perCandidate: number;
  readonly perTarget: number;
}

/**
 * Events of a successful optimization run, counted from workflows/optimization-workflow.ts:
 * - fixed: the execution, "Validate and plan", the "Optimize" Parallel, "Package model", the two
 *   Maps, "Recommend", "Candidates kept?" (and "Delete candidates not kept" with keep-recommended),
 *   "Prove the target?", "Ramp test?", "Clean up run resources" with "Run resources cleaned
 *   up?" and "Clean-up accounted for", "Recommendation made?", "Run succeeded"; then each further clean-up round
 *   (busy endpoints waited out). A run without a recommendation ends through two Pass states and
 *   the "No recommendation" Fail instead of "Run succeeded" (3 events more: within the reserve);
 * - per compilation target: its iteration, "Start compilation job", the rounds, "Compilation ended";
 * - per candidate: its iteration, "Deploy candidate" (and its retried attempts), "Candidate
 *   skipped?", the rounds, then per load test segment the "Run load workers" Map with one
 *   iteration and one Lambda per worker, "Aggregate load test" and "Load test measurable?", per
 *   further segment "Run next load segment", per round (knee probe or repeat) the same as a
 *   segment's with "Run next load round", and per re-run "Re-run load test", "Check endpoint"
 *   and "Endpoint in service?"; then "Delete candidate endpoint", "Candidate measured".
 * A failed candidate or target takes a shorter path (no workers; a Pass instead of the rest).
 */
export function optimizationHistoryEvents(shape: OptimizationHistoryShape): HistoryCount {
  const loadTestRuns = shape.loadTestRuns ?? 1;
  // Validate, package, recommend, clean up (with its Choice and Pass); the Parallel and the two
  // Maps; "Recommendation made?" and "Run succeeded"; the clean-up loop's further rounds.
  const fixed =
    E.execution +
    4 * E.lambdaTask +
    3 * E.mapOrParallel +
    5 * E.simpleState +
    (shape.cleanUpRounds ?? 0) * POLL_ROUND +
    interleavedRoundsFixedEvents(shape.interleavedRounds ?? 0) +
    // "Candidates kept?", and "Delete candidates not kept" when it runs.
    E.simpleState +
    (shape.deletesCandidatesNotKept === true ? E.lambdaTask : 0) +
    (shape.proof === undefined ? 0 : proofEvents(shape.proof)) +
    E.simpleState +
    (shape.ramp === undefined ? 0 : rampEvents(shape.ramp));
  const perTarget = E.mapIteration + E.lambdaTask + shape.compilationRounds * POLL_ROUND + E.simpleState;
  const segments = shape.loadTestSegments ?? 1;
  const rerun = E.simpleState + E.lambdaTask + E.simpleState;
  const perCandidate =
    E.mapIteration +
    E.lambdaTask +
    (shape.deployRetries ?? 0) * RETRIED_ATTEMPT +
    E.simpleState +
    shape.endpointRounds * POLL_ROUND +
    (segments + loadTestRuns - 1) * loadTestSegmentEvents(shape.workersPerCandidate) +
    (segments - 1) * E.simpleState +
    (shape.loadRounds ?? 0) * (loadTestSegmentEvents(shape.workersPerCandidate) + E.simpleState) +
    (loadTestRuns - 1) * rerun +
    (shape.interleavedRounds ?? 0) * interleavedRoundEvents(shape.workersPerCandidate) +
    E.lambdaTask +
    E.simpleState;
  return {
    total: fixed + shape.compilationTargets * perTarget + shape.candidates * perCandidate,
    fixed,
    perCandidate,
    perTarget,
  };
}

/**
 * "Prove the target" when it runs, per attempt: "Plan proof load" and "Select proof candidate",
 * "Deploy proof endpoint", its rounds, the "Run proof load workers" Map and its workers, "Record
 * proof", "Delete proof endpoint", "Correct the count?" (a failed proof takes "Delete failed proof
 * endpoint" and "Record failed proof" instead of the last three: fewer); a corrected count adds
 * "Plan corrected proof".
 */
function proofEvents(proof: NonNullable<OptimizationHistoryShape['proof']>): number {
  const attempts = proof.attempts ?? 1;
  const attempt =
    2 * E.simpleState +
    E.lambdaTask +
    proof.endpointRounds * POLL_ROUND +
    E.mapOrParallel +
    proof.workers * (E.mapIteration + E.lambdaTask) +
    2 * E.lambdaTask +
    E.simpleState;
  return attempts * attempt + (attempts - 1) * E.simpleState;
}

/**
 * "Ramp test?" is in every run ("fixed"); when the ramp runs: "Plan ramp load" and "Select ramp
 * candidate", "Deploy ramp endpoint", its rounds, "Apply ramp scaling policy", per segment the
 * "Run ramp load workers" Map with its workers, "Aggregate ramp load test" and "Ramp load test
 * over?", per further segment "Run next ramp segment", then "Record ramp", "Deregister ramp
 * scaling", "Delete ramp endpoint" and "Re-test the ramp?" (a failed ramp takes "Deregister failed
 * ramp scaling", "Delete failed ramp endpoint" and "Record failed ramp" instead: fewer, after
 * fewer); a re-test adds "Plan ramp re-test".
 */
function rampEvents(ramp: NonNullable<OptimizationHistoryShape['ramp']>): number {
  const segments = ramp.segments ?? 1;
  const attempts = ramp.attempts ?? 1;
  const attempt =
    2 * E.simpleState +
    E.lambdaTask +
    ramp.endpointRounds * POLL_ROUND +
    E.lambdaTask +
    segments * loadTestSegmentEvents(ramp.workers) +
    (segments - 1) * E.simpleState +
    3 * E.lambdaTask +
    E.simpleState;
  return attempts * attempt + (attempts - 1) * E.simpleState;
}

/**
 * "Repeats interleaved?", and when they are: "Start repeat rounds", per round "Repeat round due?",
 * the "Repeat each candidate" Map and "Count repeat round", then the last "Repeat round due?" and
 * "Repeats done".
 */
function interleavedRoundsFixedEvents(rounds: number): number {
  if (rounds === 0) return 2 * E.simpleState;
  return 4 * E.simpleState + rounds * (2 * E.simpleState + E.mapOrParallel);
}

/**
 * One candidate's interleaved round at most: its iteration, "Repeat due?", "Prepare repeat",
 * "Check endpoint before repeat", "Endpoint still in service?", "Set repeat round", the repeat's
 * workers, "Aggregate repeat" and "Repeats over?", then "Candidate repeated". Its endpoint's delete
 * ("Delete repeated endpoint") replaces "Delete candidate endpoint", counted once per candidate.
 */
function interleavedRoundEvents(workers: number): number {
  return E.mapIteration + 5 * E.simpleState + E.lambdaTask + loadTestSegmentEvents(workers);
}

/** One load test segment: the "Run load workers" Map and its workers, "Aggregate load test", the Choice. */
function loadTestSegmentEvents(workers: number): number {
  return E.mapOrParallel + workers * (E.mapIteration + E.lambdaTask) + E.lambdaTask + E.simpleState;
}

/** The final clean-up may wait out busy endpoints for its whole deadline (workflows/clean-up-loop.ts). */
function worstCleanUpRounds(): number {
  return pollRoundsWithin(CLEAN_UP_WAIT.deadlineSeconds, {
    pollSeconds: CLEAN_UP_WAIT.firstWaitSeconds,
    maxPollSeconds: CLEAN_UP_WAIT.maxWaitSeconds,
  });
}

/** What the async workflow's history depends on. */
export interface AsyncHistoryShape {
  readonly inputs: number;
  readonly batchSize: number;
  /** Wait → Check async endpoint → Choice rounds before the inputs are sent (0 for a reused endpoint). */
  readonly endpointRounds: number;
  /** Wait → "Clean up async run" → Choice rounds after the first clean-up (busy endpoints). @default the worst case */
  readonly cleanUpRounds?: number;
  /**
   * Retried attempts of "Invoke async inference" per input: InvokeEndpointAsync throttled past the
   * SDK's retries comes back as TransientServiceError, which the task retries with a fresh token.
   * @default TRANSIENT_RETRY.maxAttempts (every input throttled until its Retry gives up)
   */
  readonly retriesPerInput?: number;
}

/**
 * Events of an async run, counted from workflows/async-inference-workflow.ts: the execution,
 * "Validate async run", the "Run async inference" Parallel, "Endpoint ready?", "Deploy async
 * endpoint" and its rounds, the batch Map, per batch its iteration, "Load batch inputs", the input
 * Map and "Record batch results", per input its iteration, the wait task with its retried attempts
 * and (when it failed) "Record failed input", then "Summarize async run", "Clean up async run" with
 * "Async run cleaned up?", "Clean-up accounted for" and its further rounds (busy endpoints waited
 * out), "Run succeeded". Every input may be throttled: a retried attempt of the wait task costs
 * about as much as a second input's wait, so the retries are counted here, per input, not left to
 * HISTORY_RETRY_RESERVE (which holds about 330 retried attempts for the whole run, not 5 × 1,000).
 */
export function asyncHistoryEvents(shape: AsyncHistoryShape): number {
  const batches = Math.ceil(shape.inputs / shape.batchSize);
  // Validate, summarize, clean up; the Parallel and the batch Map; "Endpoint ready?", the clean-up's
  // Choice and Pass, "Any input completed?", then "Run succeeded" or the two Pass states and the
  // Fail of "No input completed" (counted as three simple states); the clean-up loop's further rounds.
  const fixed =
    E.execution +
    3 * E.lambdaTask +
    2 * E.mapOrParallel +
    7 * E.simpleState +
    (shape.cleanUpRounds ?? worstCleanUpRounds()) * POLL_ROUND;
  // A deployed endpoint: "Deploy async endpoint", then its rounds (a reused one's benchmark skips the deploy).
  const prepare = shape.endpointRounds === 0 ? 0 : E.lambdaTask + shape.endpointRounds * POLL_ROUND;
  const perBatch = E.mapIteration + E.lambdaTask + E.mapOrParallel + E.lambdaTask;
  const perInput =
    E.mapIteration +
    E.waitForTokenTask +
    (shape.retriesPerInput ?? TRANSIENT_RETRY.maxAttempts) * RETRIED_TOKEN_ATTEMPT +
    E.simpleState;
  return fixed + prepare + batches * perBatch + shape.inputs * perInput;
}

/** The issue that refuses an async run whose worst case passes the history budget, or undefined. */
export function asyncHistoryIssue(shape: AsyncHistoryShape): InputIssue | undefined {
  const events = asyncHistoryEvents(shape);
  if (events <= HISTORY_BUDGET) return undefined;
  let fits = shape.inputs;
  while (fits > 0 && asyncHistoryEvents({ ...shape, inputs: fits }) > HISTORY_BUDGET) fits -= 1;
  return {
    field: 'inputs',
    given: `${shape.inputs} inputs, up to ${events} history events (each input's "Invoke async inference" retried up to ${shape.retriesPerInput ?? TRANSIENT_RETRY.maxAttempts} times when InvokeEndpointAsync is throttled)`,
    expected: `at most ${fits} inputs per run: ${historyLimitText()} (split the inputs over several runs)`,
  };
}

function historyLimitText(): string {
  return `a run may record at most ${HISTORY_BUDGET} history events (Step Functions' ${STEP_FUNCTIONS_QUOTAS.maxHistoryEvents} per execution, less ${HISTORY_RETRY_RESERVE} kept for retries), and a full history cannot be caught`;
}

/**
 * Upper bounds of what later states add to a run's state beside the plan, per item. Each is a
 * bound of small JSON documents (handlers/contracts/optimization-state.ts) with the longest text they
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
}

export interface LargestState {
  readonly bytes: number;
  readonly state: string;
}

/** UTF-8 bytes of a value as Step Functions carries it (JSON). */
export function jsonBytes(value: unknown): number {
  // JSON.stringify gives undefined for undefined, whatever its declared type says.
  const json = JSON.stringify(value) as string | undefined;
  return Buffer.byteLength(json ?? '', 'utf8');
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
  const runState =
    planBytes + A.fixed + compilations + footprint.candidates.length * (A.candidateOutcome + A.summaryLine);
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

/** What decides an optimization run's history, besides the plan's counts. */
export interface OptimizationTimings {
  readonly endpointDeadlineSeconds: number;
  readonly compilationDeadlineSeconds: number;
  readonly compilationMaxRuntimeSeconds: number;
  readonly endpointPolling: PollSchedule;
  readonly compilationPolling: PollSchedule;
}

/** The Neo job's default `maxRuntimeSeconds` (the run input's default): past it, the runtime is the field to shrink. */
const DEFAULT_COMPILATION_RUNTIME_SECONDS = 900;

/** A load test as the limits see it: its worst-case length and the segments it runs as. */
export interface LoadTestShape {
  /** Every step's warm-up and window, capped by maxTotalSeconds (load-test/plan.ts `loadTestSeconds`). */
  readonly testSeconds: number;
  /** The schedule length of one worker invocation (the plan's `loadSegmentSeconds`). */
  readonly segmentSeconds: number;
  /** Rounds after the schedule within the candidate's own test in the worst case (`worstCaseOwnRounds`). @default 0 */
  readonly rounds?: number;
  /** Interleaved repeat rounds after every candidate's own test (`interleavedRepeatRounds`). @default 0 */
  readonly interleavedRounds?: number;
  /** The schedule time of one round: a step's warm-up and window. @default 0 */
  readonly roundSeconds?: number;
}

type HistoryCounts = Pick<
  OptimizationHistoryShape,
  'candidates' | 'workersPerCandidate' | 'compilationTargets'
> & {
  /** @default one segment */
  readonly loadTest?: LoadTestShape;
  /** Workers of "Prove the target" when it runs. @default no proof */
  readonly proofWorkers?: number;
  /** Proofs in the worst case: 2 with a correction. @default 1 */
  readonly proofAttempts?: number;
  /** "Ramp test" when it runs: its workers, the worker invocations its ramp takes, its attempts. @default no ramp */
  readonly ramp?: { readonly workers: number; readonly segments: number; readonly attempts: number };
  /** The `keep-recommended` clean-up policy: "Delete candidates not kept" runs after "Recommend". @default false */
  readonly keepsRecommended?: boolean;
};

/** Worker invocations one load test takes in the worst case (every step runs). */
export function loadTestSegmentsOf(loadTest: LoadTestShape | undefined): number {
  if (loadTest === undefined) return 1;
  return Math.max(1, Math.ceil(loadTest.testSeconds / loadTest.segmentSeconds));
}

/**
 * The issue that refuses a plan whose worst-case history passes the budget, or undefined. Worst
 * case: every endpoint takes its whole deadline to come into service and every compilation job
 * its whole runtime, polled on the back-off schedule, and every load test runs all its steps (all
 * its segments). Retried attempts (the quota Retry's included) come out of HISTORY_RETRY_RESERVE,
 * as every Retry's do; a load test re-run is not counted here: the plan has one only when it fits
 * (`loadTestRerunsWithin`). The issue names the largest share of the count and how far it must
 * come down.
 */
export function historyIssue(counts: HistoryCounts, timings: OptimizationTimings): InputIssue | undefined {
  const shape = worstCaseShape(counts, timings, 1);
  const segments = shape.loadTestSegments ?? 1;
  const count = optimizationHistoryEvents(shape);
  if (count.total <= HISTORY_BUDGET) return undefined;
  const given = `up to ${count.total} history events`;
  const room = (without: number): number => HISTORY_BUDGET - without;
  const candidatesPart = shape.candidates * count.perCandidate;
  const targetsPart = shape.compilationTargets * count.perTarget;
  if (candidatesPart >= targetsPart) {
    const rounds = shape.loadRounds ?? 0;
    const perWorker = shape.candidates * (segments + rounds) * (E.mapIteration + E.lambdaTask);
    const workersPart = shape.workersPerCandidate * perWorker;
    // Each segment after the first: its workers, "Aggregate load test", its Choice and Pass.
    const perSegment = shape.candidates * (loadTestSegmentEvents(shape.workersPerCandidate) + E.simpleState);
    const segmentsPart = (segments - 1) * perSegment;
    if (counts.loadTest !== undefined && segmentsPart * 2 >= candidatesPart) {
      const { segmentSeconds, testSeconds } = counts.loadTest;
      const maxSegments = 1 + Math.max(0, Math.floor(room(count.total - segmentsPart) / perSegment));
      return {
        field: 'loadPlan.stepDurationSeconds',
        given: `load tests of ${testSeconds} s, each run as ${segments} worker invocations of ${segmentSeconds} s, × ${shape.candidates} candidates with ${shape.workersPerCandidate} workers: ${given}`,
        expected: `load tests of at most ${maxSegments * segmentSeconds} s (${maxSegments} segments) with these candidates and workers (shorter or fewer steps, a lower loadPlan.maxTotalSeconds, fewer workers or candidates): ${historyLimitText()}`,
      };
    }
    // Rounds (knee probes, repeats) cost what a further segment does; only asked-for ones get
    // here ("Validate and plan" drops the default rounds that do not fit).
    const roundsPart =
      rounds * perSegment +
      (shape.interleavedRounds ?? 0) * shape.candidates * interleavedRoundEvents(shape.workersPerCandidate);
    if (roundsPart * 2 >= candidatesPart) {
      const maxRounds = Math.max(0, Math.floor(room(count.total - roundsPart) / perSegment));
      return {
        field: 'loadPlan.repeats',
        given: `${rounds + (shape.interleavedRounds ?? 0)} rounds after each load test (loadPlan.kneeProbes + loadPlan.repeats − 1) × ${shape.candidates} candidates with ${shape.workersPerCandidate} workers: ${given}`,
        expected: `at most ${maxRounds} round${maxRounds === 1 ? '' : 's'} (fewer kneeProbes or repeats, fewer workers or candidates): ${historyLimitText()}`,
      };
    }
    if (workersPart * 2 >= candidatesPart) {
      const maxWorkers = Math.max(0, Math.floor(room(count.total - workersPart) / perWorker));
      return {
        field: 'loadPlan.workers',
        given: `${shape.workersPerCandidate} workers × ${shape.candidates} candidates: ${given}`,
        expected: `at most ${maxWorkers} workers with ${shape.candidates} candidates (or fewer candidates): ${historyLimitText()}`,
      };
    }
    const maxCandidates = Math.max(0, Math.floor(room(count.total - candidatesPart) / count.perCandidate));
    return {
      field: 'candidates',
      given: `${shape.candidates} candidates (after expanding environmentRanges), each polled for up to ${timings.endpointDeadlineSeconds / 60} minutes: ${given}`,
      expected: `at most ${maxCandidates} candidates with these settings: ${historyLimitText()}`,
    };
  }
  if (timings.compilationMaxRuntimeSeconds > DEFAULT_COMPILATION_RUNTIME_SECONDS) {
    return {
      field: 'compilation.maxRuntimeSeconds',
      given: `${timings.compilationMaxRuntimeSeconds} s for each of ${shape.compilationTargets} targets: ${given}`,
      expected: `a shorter runtime (each target is polled until it ends, about ${POLL_ROUND} events every ${timings.compilationPolling.maxPollSeconds} s), or fewer targets: ${historyLimitText()}`,
    };
  }
  const maxTargets = Math.max(0, Math.floor(room(count.total - targetsPart) / count.perTarget));
  return {
    field: 'compilation.targets',
    given: `${shape.compilationTargets} targets: ${given}`,
    expected: `at most ${maxTargets} targets with these candidates: ${historyLimitText()}`,
  };
}

/**
 * Every endpoint polled to its deadline, every compilation job to its runtime, the final clean-up
 * waiting out busy endpoints for its whole deadline, each load test run `loadTestRuns` times.
 */
function worstCaseShape(
  counts: HistoryCounts,
  timings: OptimizationTimings,
  loadTestRuns: number,
): OptimizationHistoryShape {
  const endpointRounds = pollRoundsWithin(timings.endpointDeadlineSeconds, timings.endpointPolling);
  return {
    candidates: counts.candidates,
    workersPerCandidate: counts.workersPerCandidate,
    compilationTargets: counts.compilationTargets,
    deletesCandidatesNotKept: counts.keepsRecommended === true,
    ...(counts.proofWorkers === undefined
      ? {}
      : {
          proof: {
            workers: counts.proofWorkers,
            endpointRounds,
            ...(counts.proofAttempts === undefined ? {} : { attempts: counts.proofAttempts }),
          },
        }),
    ...(counts.ramp === undefined
      ? {}
      : {
          ramp: {
            workers: counts.ramp.workers,
            endpointRounds,
            segments: counts.ramp.segments,
            attempts: counts.ramp.attempts,
          },
        }),
    endpointRounds,
    compilationRounds: pollRoundsWithin(timings.compilationDeadlineSeconds, timings.compilationPolling),
    cleanUpRounds: worstCleanUpRounds(),
    loadTestRuns,
    loadTestSegments: loadTestSegmentsOf(counts.loadTest),
    loadRounds: counts.loadTest?.rounds ?? 0,
    interleavedRounds: counts.loadTest?.interleavedRounds ?? 0,
  };
}

/**
 * Re-runs of a candidate's load test (after a late worker) the plan can afford: LOAD_TEST_RUNS - 1
 * when the worst case with every candidate re-run still fits the history budget, else 0 (a late
 * worker is then reported as a measurement problem at once). So re-runs never make a plan that
 * fits without them be refused.
 */
export function loadTestRerunsWithin(counts: HistoryCounts, timings: OptimizationTimings): number {
  // The same worst case the refusal counts (the final clean-up's rounds included), with re-runs.
  const count = optimizationHistoryEvents(worstCaseShape(counts, timings, LOAD_TEST_RUNS));
  return count.total <= HISTORY_BUDGET ? LOAD_TEST_RUNS - 1 : 0;
}

/**
 * Compilation jobs run at once ("Compile model for each target", workflows/optimization-workflow.ts).
 */
export const COMPILATION_CONCURRENCY = 5;

/**
 * Wall time a load test segment adds beyond its schedule: the workers' head start, their
 * requests' drain and result, "Aggregate load test". At most the minute a worker's Lambda keeps
 * beyond its measuring time (run-timeouts.ts).
 */
export const SEGMENT_OVERHEAD_SECONDS = LOAD_WORKER_TIMEOUT_SECONDS - LOAD_WORKER_MEASURING_SECONDS;

/** Deleting an endpoint: about a minute, two to be safe (validate-and-plan.ts ESTIMATE_ASSUMPTIONS). */
const CANDIDATE_TEARDOWN_SECONDS = 120;

/** What the run's worst-case duration depends on. */
export interface RunTimeShape {
  readonly candidates: number;
  readonly maxConcurrentCandidates: number;
  readonly compilationTargets: number;
  readonly loadTest: LoadTestShape;
  /** Load test re-runs per candidate (the plan's `loadTestReruns`). */
  readonly loadTestReruns: number;
  /** Proofs after "Recommend" in the worst case (each one more endpoint and one step). @default 0 */
  readonly proofs?: number;
  /** "Ramp test" when it runs: its warm-up and ramp (seconds), the worker invocations they take, its attempts. @default none */
  readonly ramp?: { readonly testSeconds: number; readonly segments: number; readonly attempts?: number };
}

/**
 * The worst-case wall time of one candidate's load test: its schedule, segment gaps, a re-run's
 * first segment, every round with its own gap (interleaved repeats too: they run in the same
 * waves of candidates, later).
 */
function loadTestWallSeconds(loadTest: LoadTestShape, reruns: number): number {
  const segments = loadTestSegmentsOf(loadTest);
  const rounds = (loadTest.rounds ?? 0) + (loadTest.interleavedRounds ?? 0);
  return (
    loadTest.testSeconds +
    rounds * (loadTest.roundSeconds ?? 0) +
    (segments + reruns + rounds) * SEGMENT_OVERHEAD_SECONDS +
    reruns * Math.min(loadTest.testSeconds, loadTest.segmentSeconds)
  );
}

/**
 * The run's worst-case duration: every compilation job its whole deadline (COMPILATION_CONCURRENCY
 * at a time), then the candidates in waves of `maxConcurrentCandidates`, each taking its
 * endpoint's whole deadline to come into service, its whole load test and its deletion.
 */
export function worstRunSeconds(shape: RunTimeShape, timings: OptimizationTimings): number {
  const compilation =
    shape.compilationTargets === 0
      ? 0
      : Math.ceil(shape.compilationTargets / COMPILATION_CONCURRENCY) * timings.compilationDeadlineSeconds;
  const waves = Math.ceil(shape.candidates / shape.maxConcurrentCandidates);
  const perCandidate =
    timings.endpointDeadlineSeconds +
    loadTestWallSeconds(shape.loadTest, shape.loadTestReruns) +
    CANDIDATE_TEARDOWN_SECONDS;
  return (
    compilation +
    waves * perCandidate +
    (shape.proofs ?? 0) * proofSeconds(shape.loadTest, timings) +
    (shape.ramp === undefined ? 0 : rampSeconds(shape.ramp, timings))
  );
}

/**
 * "Ramp test" at its longest: its endpoint's deadline, the warm-up and ramp with each segment's gap,
 * and the deletion, which waits out a scale-out still running at the ramp's end (the endpoint is
 * Updating until it is in service: another endpoint deadline at most) before it can start.
 */
function rampSeconds(ramp: NonNullable<RunTimeShape['ramp']>, timings: OptimizationTimings): number {
  return (
    (ramp.attempts ?? 1) *
    (2 * timings.endpointDeadlineSeconds +
      ramp.testSeconds +
      ramp.segments * SEGMENT_OVERHEAD_SECONDS +
      CANDIDATE_TEARDOWN_SECONDS)
  );
}

/** "Prove the target" at its longest: its endpoint's deadline, one step and its gap, the deletion. */
function proofSeconds(loadTest: LoadTestShape, timings: OptimizationTimings): number {
  return (
    timings.endpointDeadlineSeconds +
    (loadTest.roundSeconds ?? 0) +
    SEGMENT_OVERHEAD_SECONDS +
    CANDIDATE_TEARDOWN_SECONDS
  );
}

/** The longest load test (whole seconds) whose run still fits the timeout; the run's duration grows with it. */
function longestLoadTestWithin(shape: RunTimeShape, timings: OptimizationTimings): number {
  const fitsWith = (testSeconds: number): boolean =>
    worstRunSeconds({ ...shape, loadTest: { ...shape.loadTest, testSeconds } }, timings) <=
    OPTIMIZATION_RUN_TIMEOUT_SECONDS;
  let low = 0;
  let high = Math.ceil(shape.loadTest.testSeconds);
  if (!fitsWith(low)) return 0;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fitsWith(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * The issue that refuses a plan whose worst case outlasts the workflow's execution timeout, or
 * undefined: a run stopped by its timeout measures nothing more and reports nothing (Step
 * Functions fails it with States.Timeout; clean-up then runs from the failure workflow). Load
 * tests are what a plan can make long, so the issue names the load plan and the longest test
 * that fits.
 */
export function runTimeIssue(shape: RunTimeShape, timings: OptimizationTimings): InputIssue | undefined {
  const worst = worstRunSeconds(shape, timings);
  if (worst <= OPTIMIZATION_RUN_TIMEOUT_SECONDS) return undefined;
  const { testSeconds } = shape.loadTest;
  const fits = longestLoadTestWithin(shape, timings);
  const hours = (seconds: number): string => `${Math.round((seconds / 3600) * 10) / 10} h`;
  return {
    field: 'loadPlan.stepDurationSeconds',
    given: `load tests of ${testSeconds} s × ${shape.candidates} candidates, ${shape.maxConcurrentCandidates} at a time: the run may last ${hours(worst)} (endpoints and compilation jobs taking their whole deadlines)`,
    expected: `load tests of at most ${fits} s with these candidates (shorter or fewer steps, a lower loadPlan.maxTotalSeconds, a higher maxConcurrentCandidates or fewer candidates), so that the run ends within its ${OPTIMIZATION_RUN_TIMEOUT_HOURS}-hour execution timeout (Step Functions stops a run past it, with States.Timeout)`,
  };
}

/** The parts of an optimization plan ("Validate and plan") that decide its limits. */
export interface PlannedOptimization {
  readonly candidates: readonly { readonly environment: Readonly<Record<string, string>> }[];
  readonly compilations: readonly unknown[];
  readonly compilationMaxRuntimeSeconds: number;
  readonly loadPlan: LoadPlan;
  /** @default awsSegmentSeconds(loadPlan) */
  readonly loadSegmentSeconds?: number;
  readonly maxConcurrentCandidates: number;
  /** "Prove the target" (only with a target): counted when it is on and can run. */
  readonly prove?: {
    readonly enabled: boolean;
    readonly workers: number;
    readonly corrections?: number;
    readonly skipReason?: string;
  };
  /** "Ramp test" (only with a target, when asked for): counted when enabled. */
  readonly rampTest?: {
    readonly enabled: boolean;
    readonly seconds: number;
    readonly workers: number;
    readonly retests?: number;
  };
  readonly tags: Readonly<Record<string, string>>;
  /** The clean-up policy: `keep-recommended` adds "Delete candidates not kept". @default delete-all */
  readonly cleanupPolicy?: string;
  readonly model?: { readonly environment: Readonly<Record<string, string>> };
  readonly payloads?: readonly unknown[];
}

export interface OptimizationLimitSettings {
  readonly expandedByRanges: boolean;
  readonly endpointDeadlineSeconds: number;
  /** Beyond the job's own runtime, before the check stops it (handlers/shared/compilation-job.ts). */
  readonly compilationDeadlineMarginSeconds: number;
  readonly polling: { readonly endpoint: PollSchedule; readonly compilation: PollSchedule };
}

function optimizationTimings(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
): OptimizationTimings {
  return {
    endpointDeadlineSeconds: settings.endpointDeadlineSeconds,
    compilationDeadlineSeconds: plan.compilationMaxRuntimeSeconds + settings.compilationDeadlineMarginSeconds,
    compilationMaxRuntimeSeconds: plan.compilationMaxRuntimeSeconds,
    endpointPolling: settings.polling.endpoint,
    compilationPolling: settings.polling.compilation,
  };
}

function historyCounts(plan: PlannedOptimization): HistoryCounts {
  return {
    candidates: plan.candidates.length,
    workersPerCandidate: plan.loadPlan.workers,
    compilationTargets: plan.compilations.length,
    loadTest: loadTestShape(plan),
    ...(plan.cleanupPolicy === 'keep-recommended' ? { keepsRecommended: true } : {}),
    ...(provesTarget(plan)
      ? { proofWorkers: plan.prove?.workers ?? 0, proofAttempts: 1 + (plan.prove?.corrections ?? 0) }
      : {}),
    ...(plan.rampTest?.enabled === true
      ? {
          ramp: {
            workers: plan.rampTest.workers,
            segments: rampShape(plan, plan.rampTest).segments,
            attempts: rampShape(plan, plan.rampTest).attempts,
          },
        }
      : {}),
  };
}

/** The ramp's warm-up and window, and the worker invocations they take (as a load test's segments). */
function rampShape(
  plan: PlannedOptimization,
  rampTest: NonNullable<PlannedOptimization['rampTest']>,
): { readonly testSeconds: number; readonly segments: number; readonly attempts: number } {
  const testSeconds = plan.loadPlan.warmupSeconds + rampTest.seconds;
  const segmentSeconds = plan.loadSegmentSeconds ?? awsSegmentSeconds(plan.loadPlan);
  return {
    testSeconds,
    segments: Math.max(1, Math.ceil(testSeconds / segmentSeconds)),
    attempts: 1 + (rampTest.retests ?? 0),
  };
}

/** Whether the plan runs "Prove the target" (asked for, and able to run). */
function provesTarget(plan: Pick<PlannedOptimization, 'prove'>): boolean {
  return plan.prove?.enabled === true && plan.prove.skipReason === undefined;
}

function loadTestShape(plan: PlannedOptimization): LoadTestShape {
  return {
    testSeconds: loadTestSeconds(plan.loadPlan),
    segmentSeconds: plan.loadSegmentSeconds ?? awsSegmentSeconds(plan.loadPlan),
    rounds: worstCaseOwnRounds(plan.loadPlan),
    interleavedRounds: interleavedRepeatRounds(plan.loadPlan),
    roundSeconds: stepPeriodMs(plan.loadPlan) / 1000,
  };
}

/** The plan's `loadTestReruns`: 1 when a re-run of every candidate's load test fits the history. */
export function plannedLoadTestReruns(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
): number {
  return loadTestRerunsWithin(historyCounts(plan), optimizationTimings(plan, settings));
}

function footprintOf(plan: PlannedOptimization, settings: OptimizationLimitSettings): PlannedRunFootprint {
  return {
    plan,
    candidates: plan.candidates,
    compilationTargets: plan.compilations.length,
    workersPerCandidate: plan.loadPlan.workers,
    tags: plan.tags,
    modelEnvironment: plan.model?.environment ?? {},
    ...(plan.payloads === undefined ? {} : { payloads: plan.payloads }),
    expandedByRanges: settings.expandedByRanges,
    ...(provesTarget(plan) ? { proofWorkers: plan.prove?.workers ?? 0 } : {}),
    ...(plan.rampTest?.enabled === true ? { rampWorkers: plan.rampTest.workers } : {}),
  };
}

/**
 * Whether a plan's worst case, rounds included, fits the history budget and the run's timeout:
 * what decides how many of the default rounds a plan gets (`defaultRoundsWithin`, "Validate and
 * plan"). Rounds do not change the largest state's size, which is left out.
 */
export function roundsFitLimits(
  plan: Pick<
    PlannedOptimization,
    'loadPlan' | 'loadSegmentSeconds' | 'compilationMaxRuntimeSeconds' | 'maxConcurrentCandidates'
  > & { readonly candidateCount: number; readonly compilationCount: number },
  settings: OptimizationLimitSettings,
): boolean {
  const planned: PlannedOptimization = {
    ...plan,
    candidates: Array.from({ length: plan.candidateCount }, () => ({ environment: {} })),
    compilations: Array.from({ length: plan.compilationCount }),
    tags: {},
  };
  const timings = optimizationTimings(planned, settings);
  const time = runTimeIssue(
    {
      candidates: plan.candidateCount,
      maxConcurrentCandidates: plan.maxConcurrentCandidates,
      compilationTargets: plan.compilationCount,
      loadTest: loadTestShape(planned),
      loadTestReruns: 0,
    },
    timings,
  );
  return historyIssue(historyCounts(planned), timings) === undefined && time === undefined;
}

/** Every limit the plan would break: its largest state, its worst-case history, then its duration. */
export function optimizationLimitIssues(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
): InputIssue[] {
  const size = stateSizeIssue(footprintOf(plan, settings));
  const timings = optimizationTimings(plan, settings);
  const history = historyIssue(historyCounts(plan), timings);
  const time = runTimeIssue(runTimeShapeOf(plan, settings), timings);
  return [size, history, time].filter((issue): issue is InputIssue => issue !== undefined);
}

function runTimeShapeOf(plan: PlannedOptimization, settings: OptimizationLimitSettings): RunTimeShape {
  return {
    candidates: plan.candidates.length,
    maxConcurrentCandidates: plan.maxConcurrentCandidates,
    compilationTargets: plan.compilations.length,
    loadTest: loadTestShape(plan),
    loadTestReruns: plannedLoadTestReruns(plan, settings),
    proofs: provesTarget(plan) ? 1 + (plan.prove?.corrections ?? 0) : 0,
    ...(plan.rampTest?.enabled === true ? { ramp: rampShape(plan, plan.rampTest) } : {}),
  };
}

/** The plan's worst-case duration, the one its time limit is checked with: what `plan` prints. */
export function optimizationWorstRunSeconds(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
): number {
  return worstRunSeconds(runTimeShapeOf(plan, settings), optimizationTimings(plan, settings));
}

/**
 * How much of each Step Functions limit a planned run may use: what `npm start -- --plan` shows
 * beside the cost, so a user sees how close a run is to being refused. The figures are the ones
 * the limits are checked with (`optimizationLimitIssues`, `asyncHistoryIssue`).
 */
export interface ExecutionBudgets {
  readonly historyEvents: {
    /** The worst case counted at planning (every poll to its deadline, every re-run). */
    readonly worstCase: number;
    /** HISTORY_BUDGET: the quota less the retries' reserve. */
    readonly budget: number;
    readonly quota: number;
  };
  /** The optimization workflow's largest state; the async plan stays small by design (no estimate). */
  readonly largestState?: {
    readonly bytes: number;
    readonly state: string;
    readonly quotaBytes: number;
  };
}

/** The budgets an optimization plan uses, its load test re-runs (`plannedLoadTestReruns`) included. */
export function optimizationBudgets(
  plan: PlannedOptimization,
  settings: OptimizationLimitSettings,
  loadTestReruns: number,
): ExecutionBudgets {
  const history = optimizationHistoryEvents(
    worstCaseShape(historyCounts(plan), optimizationTimings(plan, settings), 1 + loadTestReruns),
  );
  const largest = largestOptimizationState(footprintOf(plan, settings));
  return {
    historyEvents: {
      worstCase: history.total,
      budget: HISTORY_BUDGET,
      quota: STEP_FUNCTIONS_QUOTAS.maxHistoryEvents,
    },
    largestState: { ...largest, quotaBytes: STEP_FUNCTIONS_QUOTAS.maxPayloadBytes },
  };
}

/** The budget an async plan uses: its worst-case history (`asyncHistoryEvents`). */
export function asyncBudgets(shape: AsyncHistoryShape): ExecutionBudgets {
  return {
    historyEvents: {
      worstCase: asyncHistoryEvents(shape),
      budget: HISTORY_BUDGET,
      quota: STEP_FUNCTIONS_QUOTAS.maxHistoryEvents,
    },
  };
}

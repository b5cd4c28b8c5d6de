import {
  CLEAN_UP_WAIT,
  nextPollSeconds,
  type PollSchedule,
  STEP_FUNCTIONS_QUOTAS,
  TRANSIENT_RETRY,
} from '../contracts/index.js';

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
export const POLL_ROUND = E.simpleState + E.lambdaTask + E.simpleState;

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
   * one (core/load-test/engine.ts). A re-run replaces the first segment only (late workers
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
  /**
   * The output-quality guard (run input `quality`): "Record candidate answers" per candidate and
   * "Judge output quality" once. @default false
   */
  readonly qualityGuarded?: boolean;
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
 *   and "Endpoint in service?"; then "Quality guarded?" (and "Record candidate answers" with a
 *   guard), "Endpoint kept for repeats?", "Delete candidate endpoint", "Candidate measured";
 * - fixed too: "Output quality guarded?" (and "Judge output quality" with a guard), "Quality judged".
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
    (shape.ramp === undefined ? 0 : rampEvents(shape.ramp)) +
    2 * E.simpleState +
    (shape.qualityGuarded === true ? E.lambdaTask : 0);
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
    2 * E.simpleState +
    (shape.qualityGuarded === true ? E.lambdaTask : 0) +
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
export function interleavedRoundEvents(workers: number): number {
  return E.mapIteration + 5 * E.simpleState + E.lambdaTask + loadTestSegmentEvents(workers);
}

/** One load test segment: the "Run load workers" Map and its workers, "Aggregate load test", the Choice. */
export function loadTestSegmentEvents(workers: number): number {
  return E.mapOrParallel + workers * (E.mapIteration + E.lambdaTask) + E.lambdaTask + E.simpleState;
}

/** The final clean-up may wait out busy endpoints for its whole deadline (workflows/clean-up-loop.ts). */
export function worstCleanUpRounds(): number {
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

/** Why a history past the budget is refused, for the issues that name it. */
export function historyLimitText(): string {
  return `a run may record at most ${HISTORY_BUDGET} history events (Step Functions' ${STEP_FUNCTIONS_QUOTAS.maxHistoryEvents} per execution, less ${HISTORY_RETRY_RESERVE} kept for retries), and a full history cannot be caught`;
}

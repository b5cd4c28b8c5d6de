import { STEP_FUNCTIONS_QUOTAS } from './step-functions-quotas.js';

export { STEP_FUNCTIONS_QUOTAS };

/**
 * What the workflows, the Lambdas and the planner's limit models share about a run's execution:
 * the polls' back-off, the Retry settings, how many compilation jobs run at once, how a state's
 * size is measured, and the budgets a plan reports. The models themselves (history, state size,
 * run time) live in the planning room (core/planning/).
 */

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
 * The wait before the next poll: polls back off (doubling up to a cap) so a slow job or endpoint
 * costs few history events, every Wait → Check → Choice round adding about nine. The first wait
 * (`previous` 0) is `pollSeconds`.
 */
export function nextPollSeconds(previous: number, schedule: PollSchedule): number {
  return Math.min(schedule.maxPollSeconds, Math.max(schedule.pollSeconds, previous * 2));
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

/** UTF-8 bytes of a value as Step Functions carries it (JSON). */
export function jsonBytes(value: unknown): number {
  // JSON.stringify gives undefined for undefined, whatever its declared type says.
  const json = JSON.stringify(value) as string | undefined;
  return Buffer.byteLength(json ?? '', 'utf8');
}

/**
 * Compilation jobs run at once ("Compile model for each target", workflows/optimization-workflow.ts).
 */
export const COMPILATION_CONCURRENCY = 5;

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

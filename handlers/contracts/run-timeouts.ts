/**
 * Each workflow's default execution timeout, in hours: one constant per workflow, read by its
 * state machine construct (workflows/), by the safety net that derives the janitor's age limit from
 * the longer of the two (infra/constructs/safety-net.ts), and by the janitor Lambda's own default
 * (lambdas/janitor.ts). Plain numbers, so that a Lambda bundle imports them without aws-cdk-lib.
 */

/** The optimization workflow: validate, package, compile, benchmark every candidate, report. */
export const OPTIMIZATION_RUN_TIMEOUT_HOURS = 24;
export const OPTIMIZATION_RUN_TIMEOUT_SECONDS = OPTIMIZATION_RUN_TIMEOUT_HOURS * 3600;

/** The async-inference workflow: its waits alone may last 7 h 15 min each, batch after batch. */
export const ASYNC_RUN_TIMEOUT_HOURS = 48;

/**
 * The janitor's default maximum age: one hour past the longer workflow timeout, so that no
 * resource of an execution that may still be running is old enough to sweep by age alone.
 */
export const DEFAULT_JANITOR_MAX_AGE_HOURS =
  Math.max(OPTIMIZATION_RUN_TIMEOUT_HOURS, ASYNC_RUN_TIMEOUT_HOURS) + 1;

/**
 * Each workflow's default execution timeout, in hours: one constant per workflow, read by its
 * state machine construct (workflows/) and by the janitor's settings, whose age limit derives from
 * the longer of the two (contracts/janitor-settings.ts, infra/constructs/safety-net.ts). Plain
 * numbers, so that a Lambda bundle imports them without aws-cdk-lib.
 */

/** The optimization workflow: validate, package, compile, benchmark every candidate, report. */
export const OPTIMIZATION_RUN_TIMEOUT_HOURS = 24;
export const OPTIMIZATION_RUN_TIMEOUT_SECONDS = OPTIMIZATION_RUN_TIMEOUT_HOURS * 3600;

/** The async-inference workflow: its waits alone may last 7 h 15 min each, batch after batch. */
export const ASYNC_RUN_TIMEOUT_HOURS = 48;

/**
 * The load worker Lambda's timeout: 900 s, the most a Lambda function may run ("Function timeout:
 * 900 seconds (15 minutes)", AWS Lambda Developer Guide, "Lambda quotas",
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). The workflow's
 * "Run load worker" state and the load plan's bounds both read it.
 */
export const LOAD_WORKER_TIMEOUT_SECONDS = 900;

/**
 * What a load worker can spend measuring: its timeout less a minute kept for the wait until the
 * workers' shared start (LOAD_START_DELAY_SECONDS, 10 s by default), the result written to S3
 * (lambdas/run-load-worker.ts keeps 15 s) and the engine's own reserve. A load test longer than
 * this, less the request timeout, runs as consecutive worker invocations (load-test/plan.ts
 * `awsSegmentSeconds`).
 */
export const LOAD_WORKER_MEASURING_SECONDS = LOAD_WORKER_TIMEOUT_SECONDS - 60;

import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { ErrorNames } from '../core/contracts/index.js';
import { LAMBDA_SERVICE_ERRORS, standardStateMachine } from './lambda-step.js';

/**
 * How "Clean up failed run" retries a clean-up that left something (`CleanUpIncompleteError`), could
 * not list or read the run because it was throttled (`TransientServiceError`) or timed out: delays of
 * 1, 2, 4, 8, 16 then 30 minutes (seven times) at most. Throttling gets this long schedule too: it is
 * the likely failure when many runs fail together, and a short schedule would give up within
 * minutes, before the control plane recovers, with nothing listed. Full jitter draws each delay
 * between 0 and that ceiling (CDK `JitterType.FULL`: "a random number between 0 and the computed
 * backoff"), so that the clean-ups of runs that failed together do not hit SageMaker's control plane
 * together: 13 attempts over ~2 hours on average, 4 h 1 min at most. Jitter makes the total random:
 * 12 retries keep trying for at least an hour in 99.6 % of executions (simulated; with 8 retries,
 * only half would).
 */
export const FAILED_RUN_RETRY = {
  intervalSeconds: 60,
  backoffRate: 2,
  maxAttempts: 12,
  maxDelaySeconds: 30 * 60,
} as const;

/** Lambda's own errors (the service, its throttling of invocations): retried soon, also jittered. */
const TRANSIENT_RETRY = { intervalSeconds: 2, backoffRate: 2, maxAttempts: 6 } as const;

/** The clean-up Lambda's timeout and the Task's: a round lists, describes and deletes one call at a time. */
export const FAILED_RUN_CLEAN_UP_STEP_TIMEOUT = Duration.minutes(10);

/** Bounds the whole execution: the longest retry schedule, the first wait and the attempts themselves. */
export const FAILED_RUN_CLEAN_UP_TIMEOUT_HOURS = 5;

/** The longest the retries of `FAILED_RUN_RETRY` wait in total, in seconds (every delay at its ceiling). */
export function longestRetrySchedule(retry: typeof FAILED_RUN_RETRY = FAILED_RUN_RETRY): number {
  let total = 0;
  for (let attempt = 0; attempt < retry.maxAttempts; attempt += 1) {
    total += Math.min(retry.maxDelaySeconds, retry.intervalSeconds * retry.backoffRate ** attempt);
  }
  return total;
}

export interface FailedRunCleanUpWorkflowProps {
  /** The `clean-up-failed-run` step Lambda. */
  readonly cleanUpFailedRun: IFunction;
  /**
   * How long after the failed execution ended the first clean-up starts: longer than any step
   * Lambda that creates SageMaker resources may still be running (aborting an execution does not
   * stop a Lambda invocation in flight), so that the clean-up's listing sees what they created.
   */
  readonly inFlightWait: Duration;
  /** @default FAILED_RUN_CLEAN_UP_TIMEOUT_HOURS (5 hours) */
  readonly timeout?: Duration;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * "Clean up failed run" (Standard), the second layer of clean-up: started by the safety net's
 * EventBridge rule with the status change event of an execution that ended FAILED, TIMED_OUT or
 * ABORTED. Wait out in-flight step Lambdas → clean up the run (each attempt reads the execution's
 * status first, and leaves a run that a redrive made live again alone; it lists by name prefix and
 * tag each attempt, so it finds what was created after the abort) → retried with backoff while
 * something is left or the listing is throttled → "Clean-up gave up", whose cause is the clean-up's
 * account (what is left or found so far, why, the commands that finish it); the stack alarms on this
 * state machine's failed and timed-out executions.
 */
export class FailedRunCleanUpWorkflow extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly timeout: Duration;
  readonly inFlightWait: Duration;

  constructor(scope: Construct, id: string, props: FailedRunCleanUpWorkflowProps) {
    super(scope, id);
    this.inFlightWait = props.inFlightWait;
    this.timeout = props.timeout ?? Duration.hours(FAILED_RUN_CLEAN_UP_TIMEOUT_HOURS);
    checkTimeout(this.timeout, this.inFlightWait);

    const wait = new sfn.Wait(this, 'Wait for in-flight steps to stop', {
      comment:
        'A step Lambda running when the execution ended may still create an endpoint until its timeout',
      time: sfn.WaitTime.duration(this.inFlightWait),
    });
    const cleanUp = this.cleanUpTask(props.cleanUpFailedRun);
    const gaveUp = new sfn.Fail(this, 'Clean-up gave up', {
      comment: 'The cause is the clean-up account: what is left, why, and the commands that delete it',
      errorPath: '$.error.Error',
      causePath: '$.error.Cause',
    });
    cleanUp.addCatch(gaveUp, { errors: ['States.ALL'], resultPath: '$.error' });
    const definition = wait
      .next(cleanUp)
      .next(new sfn.Succeed(this, 'Failed run cleaned up', { outputPath: '$.cleanUp' }));

    this.stateMachine = standardStateMachine(this, {
      comment: 'Deletes what a failed, timed-out or aborted run left, retrying for about two hours',
      definition,
      timeout: this.timeout,
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
    });
  }

  /** The input is the EventBridge event itself: the state is the payload (no Parameters). */
  private cleanUpTask(fn: IFunction): tasks.LambdaInvoke {
    const task = new tasks.LambdaInvoke(this, 'Clean up failed run', {
      lambdaFunction: fn,
      payloadResponseOnly: true,
      retryOnServiceExceptions: false,
      taskTimeout: sfn.Timeout.duration(FAILED_RUN_CLEAN_UP_STEP_TIMEOUT),
      resultPath: '$.cleanUp',
    });
    task.addRetry({
      errors: [...LAMBDA_SERVICE_ERRORS],
      interval: Duration.seconds(TRANSIENT_RETRY.intervalSeconds),
      backoffRate: TRANSIENT_RETRY.backoffRate,
      maxAttempts: TRANSIENT_RETRY.maxAttempts,
      jitterStrategy: sfn.JitterType.FULL,
    });
    task.addRetry({
      // The step is idempotent (it reads the run and lists what is left each attempt): a timeout
      // is retried too.
      errors: [ErrorNames.cleanUpIncomplete, ErrorNames.transientService, 'States.Timeout'],
      interval: Duration.seconds(FAILED_RUN_RETRY.intervalSeconds),
      backoffRate: FAILED_RUN_RETRY.backoffRate,
      maxAttempts: FAILED_RUN_RETRY.maxAttempts,
      maxDelay: Duration.seconds(FAILED_RUN_RETRY.maxDelaySeconds),
      jitterStrategy: sfn.JitterType.FULL,
    });
    return task;
  }
}

/** What an attempt usually takes (a few List, Describe and Delete calls), for the timeout check. */
const TYPICAL_ATTEMPT_SECONDS = 60;

/** The execution timeout must leave room for the first wait, every retry delay and the attempts. */
function checkTimeout(timeout: Duration, inFlightWait: Duration): void {
  const attempts = FAILED_RUN_RETRY.maxAttempts + 1;
  const minimumSeconds =
    inFlightWait.toSeconds() + longestRetrySchedule() + attempts * TYPICAL_ATTEMPT_SECONDS;
  if (timeout.toSeconds() < minimumSeconds) {
    throw new Error(
      `FailedRunCleanUpWorkflow timeout: got ${timeout.toHumanString()}, expected at least ` +
        `${Math.ceil(minimumSeconds / 60)} minutes: the first wait (${inFlightWait.toHumanString()}), the ` +
        `retry delays at their ceiling (${Math.round(longestRetrySchedule() / 60)} minutes) and ${attempts} ` +
        'attempts of a minute each; raise the timeout',
    );
  }
}

import { Duration } from 'aws-cdk-lib';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { CleanUpStatuses, TAG_KEYS } from '../core/contracts/index.js';
import { addJitteredRetry, lambdaStep } from './lambda-step.js';
import type { StepFunction, TaskPayload } from './task-parameters.js';

/** The loop over a clean-up step whose event is `Event`; `Given` is the payload as written. */
export interface CleanUpLoopProps<Event, Given> {
  /** The Task state, e.g. "Clean up run resources". */
  readonly name: string;
  /** The Choice after it, e.g. "Run resources cleaned up?". */
  readonly doneName: string;
  /** The Wait before the next round, e.g. "Wait to clean up run resources". */
  readonly waitName: string;
  readonly fn: StepFunction<Event>;
  readonly payload: TaskPayload<Event, Given>;
  /** Where each round's account goes; the next round's payload must carry it back to the step. */
  readonly resultPath: string;
}

export interface CleanUpLoop {
  /** The first state: chain into it. */
  readonly task: tasks.LambdaInvoke;
  /** Set its `otherwise` to what follows a finished clean-up (COMPLETE or INCOMPLETE). */
  readonly done: sfn.Choice;
}

/**
 * Clean up → "done?" → Wait → clean up again, while the account says WAITING (endpoints still
 * Creating or Updating, which SageMaker will not delete yet). The step bounds the loop itself: past
 * its deadline (45 minutes) it leaves such endpoints in the account. Waiting in the workflow costs
 * no Lambda time; each round is about nine history events and the waits back off from 30 s to
 * 2 minutes, so a full 45-minute wait adds about 25 rounds, ~230 events, to a run.
 *
 * The step is idempotent (it lists what is left each round), so a timeout is retried; any other
 * error goes to the caller's Catch.
 */
export function cleanUpLoop<Event, const Given extends object>(
  scope: Construct,
  props: CleanUpLoopProps<Event, Given>,
): CleanUpLoop {
  const task = lambdaStep(scope, props.name, props.fn, {
    payload: props.payload,
    resultPath: props.resultPath,
    timeout: Duration.minutes(10),
  });
  addJitteredRetry(task, {
    errors: ['States.Timeout'],
    interval: Duration.seconds(30),
    backoffRate: 2,
    maxAttempts: 2,
  });
  const wait = new sfn.Wait(scope, props.waitName, {
    time: sfn.WaitTime.secondsPath(`${props.resultPath}.waitSeconds`),
  });
  const done = new sfn.Choice(scope, props.doneName).when(
    sfn.Condition.stringEquals(`${props.resultPath}.status`, CleanUpStatuses.waiting),
    wait.next(task),
  );
  task.next(done);
  return { task, done };
}

/**
 * What a success path records when its clean-up step failed (a timeout after retries, a crash):
 * the run keeps its result and says what it could not do, instead of failing and losing it. The
 * error's cause (a Lambda's JSON, with its stack trace) stays in the execution history.
 */
export function recordFailedCleanUp(scope: Construct, name: string, resultPath: string): sfn.Pass {
  return new sfn.Pass(scope, name, {
    parameters: {
      status: CleanUpStatuses.failed,
      'message.$':
        "States.Format('Clean-up did not finish ({}, see the execution history). The run result stands. What the run created and " +
        `clean-up had not deleted carries the tag ${TAG_KEYS.runId}={} (aws resourcegroupstaggingapi get-resources ` +
        `--tag-filters Key=${TAG_KEYS.runId},Values={}); delete it by hand, or the janitor sweeps it within an ` +
        "hour after the run ends.', $.cleanUpError.Error, $$.Execution.Name, $$.Execution.Name)",
    },
    resultPath,
  });
}

export interface SuccessPathCleanUpProps<Event, Given> extends Omit<
  CleanUpLoopProps<Event, Given>,
  'resultPath'
> {
  /** The Pass that records a clean-up step that failed, e.g. "Record failed run clean-up". */
  readonly recordFailureName: string;
}

/**
 * A success path's clean-up: the loop, its account in the summary's `cleanUp`, and a Catch that
 * records a failed clean-up there instead of failing the run (which would then reach "Clean up after
 * failure" and delete an endpoint the run keeps). Ends in "Clean-up accounted for".
 */
export function successPathCleanUp<Event, const Given extends object>(
  scope: Construct,
  props: SuccessPathCleanUpProps<Event, Given>,
): sfn.Chain {
  const resultPath = '$.summary.cleanUp';
  const cleanUp = cleanUpLoop(scope, { ...props, resultPath });
  const accounted = new sfn.Pass(scope, 'Clean-up accounted for');
  cleanUp.done.otherwise(accounted);
  const failedCleanUp = recordFailedCleanUp(scope, props.recordFailureName, resultPath);
  cleanUp.task.addCatch(failedCleanUp, { errors: ['States.ALL'], resultPath: '$.cleanUpError' });
  failedCleanUp.next(accounted);
  return sfn.Chain.custom(cleanUp.task, [accounted], accounted);
}

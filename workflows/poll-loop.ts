import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';

/**
 * When the loop ends: `until` a condition holds (every other outcome waits and checks again), or
 * `whilst` one holds (that outcome waits again, every other one leaves). Both read the check's
 * result; which one a loop uses follows the status it polls, so its Choice names the status once.
 */
export type PollExit =
  | { readonly until: sfn.Condition; readonly then: sfn.IChainable }
  | { readonly whilst: sfn.Condition; readonly then: sfn.IChainable };

export interface PollLoopProps {
  /** The Wait, e.g. "Wait for endpoint". */
  readonly waitName: string;
  /** Where the start and check steps put the seconds to wait (they back off: nextPollSeconds). */
  readonly waitSecondsPath: string;
  /** The check step, e.g. "Check endpoint": it describes the resource and sets the next wait. */
  readonly check: tasks.LambdaInvoke;
  /** The Choice after the check, e.g. "Endpoint in service?". */
  readonly choiceName: string;
  readonly exit: PollExit;
}

export interface PollLoop {
  /** The loop's entry: the start step (or a Choice before it) goes here. */
  readonly wait: sfn.Wait;
  readonly check: tasks.LambdaInvoke;
  readonly choice: sfn.Choice;
}

/**
 * Wait → check → Choice → Wait again until the resource is ready (a compilation job, an
 * endpoint): the polls of both workflows. Waiting in the workflow costs no Lambda time, and the
 * step that returns the status also returns how long to wait next (DLT's task-status checker
 * pattern). Each round is about nine history events, which planning counts.
 */
export function pollLoop(scope: Construct, props: PollLoopProps): PollLoop {
  const wait = new sfn.Wait(scope, props.waitName, {
    time: sfn.WaitTime.secondsPath(props.waitSecondsPath),
  });
  const choice = new sfn.Choice(scope, props.choiceName);
  if ('until' in props.exit) {
    choice.when(props.exit.until, props.exit.then).otherwise(wait);
  } else {
    choice.when(props.exit.whilst, wait).otherwise(props.exit.then);
  }
  wait.next(props.check).next(choice);
  return { wait, check: props.check, choice };
}
